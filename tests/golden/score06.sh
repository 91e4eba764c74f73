#!/bin/bash
# golden case score06 as its own test: tests/golden/run
exec bash "${srcdir:-.}/tests/golden/run" score06
