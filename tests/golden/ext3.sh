#!/bin/bash
# golden case ext3 as its own test: tests/golden/run
exec bash "${srcdir:-.}/tests/golden/run" ext3
