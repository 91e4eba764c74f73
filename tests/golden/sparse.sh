#!/bin/bash
# golden case sparse as its own test: tests/golden/run
exec bash "${srcdir:-.}/tests/golden/run" sparse
