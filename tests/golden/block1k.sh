#!/bin/bash
# golden case block1k as its own test: tests/golden/run
exec bash "${srcdir:-.}/tests/golden/run" block1k
