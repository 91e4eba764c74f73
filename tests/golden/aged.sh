#!/bin/bash
# golden case aged as its own test: tests/golden/run
exec bash "${srcdir:-.}/tests/golden/run" aged
