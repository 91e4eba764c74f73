#!/bin/bash
# golden case default as its own test: tests/golden/run
exec bash "${srcdir:-.}/tests/golden/run" default
