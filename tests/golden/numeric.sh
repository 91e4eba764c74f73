#!/bin/bash
# golden case numeric as its own test: tests/golden/run
exec bash "${srcdir:-.}/tests/golden/run" numeric
