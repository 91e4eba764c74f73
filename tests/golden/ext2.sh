#!/bin/bash
# golden case ext2 as its own test: tests/golden/run
exec bash "${srcdir:-.}/tests/golden/run" ext2
