/* lang.c - the source languages: template rows by role, compiled once into byte codes */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "content/text/text.h"
#include "content/text/lang.h"

/*
 * Languages are rows of templates, each row a role and the languages it
 * serves, so that what the C family shares is written once.  In a
 * template, a backquote starts a code:
 *   `i identifier (the language's case)  `I PascalCase  `U UPPER_CASE
 *   `w a plain word   `v a variable of the function   `t a type
 *   `n a number       `s a few words (strings)        `m a sentence (comments)
 *   `c a callee (library or defined before)           `f the function's name
 *   `N `G `L the file's own name (Pascal, UPPER, lower)
 *   `> new line and indent   `+ `- indent in, out
 * Lines are indented by the current depth.  The rows are compiled once
 * (lang_compile()) into byte codes: literal runs with their lengths,
 * copied 16 bytes at a time, and one byte a code.
 */
enum lang_id {
	LANG_C, LANG_CPP, LANG_JAVA, LANG_CS, LANG_JS, LANG_GO, LANG_RS, LANG_PHP, LANG_PY,
	LANG_SH, LANG_PL, LANG_RB, LANG_CSS, NLANG
};

#define B_C	(1u << LANG_C)
#define B_CPP	(1u << LANG_CPP)
#define B_JAVA	(1u << LANG_JAVA)
#define B_CS	(1u << LANG_CS)
#define B_JS	(1u << LANG_JS)
#define B_GO	(1u << LANG_GO)
#define B_RS	(1u << LANG_RS)
#define B_PHP	(1u << LANG_PHP)
#define B_PY	(1u << LANG_PY)
#define B_SH	(1u << LANG_SH)
#define B_PL	(1u << LANG_PL)
#define B_RB	(1u << LANG_RB)
#define B_CSS	(1u << LANG_CSS)
/* blocks closed by a brace */
#define B_BRACE	(B_C | B_CPP | B_JAVA | B_CS | B_JS | B_GO | B_RS | B_PHP | B_PL)
#define B_CLIKE	(B_C | B_CPP | B_JAVA | B_CS | B_JS)
#define B_HASH	(B_PY | B_SH | B_PL | B_RB)

static const struct {
	const char *name;
	int camel;                  /* `i in camelCase, else snake_case */
	unsigned depth0;            /* depth inside R_OPEN */
} langs[NLANG] = {
	[LANG_C] = { "c", 0, 0 },      [LANG_CPP] = { "cpp", 0, 0 }, [LANG_JAVA] = { "java", 1, 1 },
	[LANG_CS] = { "cs", 1, 2 },    [LANG_JS] = { "js", 1, 0 },   [LANG_GO] = { "go", 1, 0 },
	[LANG_RS] = { "rs", 0, 0 },    [LANG_PHP] = { "php", 0, 0 }, [LANG_PY] = { "py", 0, 0 },
	[LANG_SH] = { "sh", 0, 0 },    [LANG_PL] = { "pl", 0, 0 },   [LANG_RB] = { "rb", 0, 0 },
	[LANG_CSS] = { "css", 0, 0 },
};

#define LIST(...) ((const char *const[]){ __VA_ARGS__, NULL })

/* An empty template is no template, except in a list (an empty type). */
static const struct {
	uint8_t role;
	uint16_t langs;
	const char *const *t;
} lang_rows[] = {
	{ R_IND, B_C | B_GO | B_SH, LIST("\t") },
	{ R_IND, B_CPP | B_JAVA | B_CS | B_RS | B_PHP | B_PY | B_PL, LIST("    ") },
	{ R_IND, B_JS | B_RB | B_CSS, LIST("  ") },
	{ R_LC, B_C | B_CSS, LIST("/* ") },
	{ R_LC, B_CPP | B_JAVA | B_CS | B_JS | B_GO | B_RS | B_PHP, LIST("// ") },
	{ R_LC, B_HASH, LIST("# ") },
	{ R_LC_END, B_C | B_CSS, LIST(" */") },
	{ R_DOC_OPEN, B_C, LIST("/*") },
	{ R_DOC_OPEN, B_JAVA | B_JS, LIST("/**") },
	{ R_DOC_LINE, B_C | B_JAVA | B_JS, LIST(" * ") },
	{ R_DOC_CLOSE, B_C | B_JAVA | B_JS, LIST(" */") },

	{ R_FIRST, B_C | B_CSS, LIST("/* `m */") },
	{ R_FIRST, B_CPP, LIST("// `m") },
	{ R_FIRST, B_JAVA, LIST("package org.`w.`w;") },
	{ R_FIRST, B_CS, LIST("using System;") },
	{ R_FIRST, B_JS, LIST("'use strict';") },
	{ R_FIRST, B_GO, LIST("package `w") },
	{ R_FIRST, B_RS, LIST("//! `m") },
	{ R_FIRST, B_PHP, LIST("<?php") },
	{ R_FIRST, B_PY, LIST("#!/usr/bin/env python3\n\"\"\"`m\"\"\"") },
	{ R_FIRST, B_SH, LIST("#!/bin/sh\n# `m") },
	{ R_FIRST, B_PL, LIST("#!/usr/bin/perl") },
	{ R_FIRST, B_RB, LIST("# frozen_string_literal: true") },

	{ R_GUARD, B_C | B_CPP, LIST("#ifndef `G_H\n#define `G_H") },
	{ R_IMP_OPEN, B_GO, LIST("import (") },
	{ R_IMP_CLOSE, B_GO, LIST(")") },
	{ R_IMPORT, B_C, LIST("#include <stdio.h>", "#include <stdlib.h>", "#include <string.h>",
			      "#include <stdint.h>", "#include <errno.h>", "#include <unistd.h>",
			      "#include <fcntl.h>", "#include <sys/types.h>", "#include <pthread.h>",
			      "#include \"`L.h\"", "#include \"`w.h\"") },
	{ R_IMPORT, B_CPP, LIST("#include <iostream>", "#include <vector>", "#include <string>",
				"#include <map>", "#include <memory>", "#include <algorithm>",
				"#include <cstdint>", "#include \"`L.h\"", "#include \"`w.hpp\"") },
	{ R_IMPORT, B_JAVA, LIST("import java.util.List;", "import java.util.ArrayList;",
				 "import java.util.Map;", "import java.util.HashMap;",
				 "import java.io.IOException;", "import java.util.Objects;",
				 "import java.util.concurrent.TimeUnit;") },
	{ R_IMPORT, B_CS, LIST("using System.Collections.Generic;", "using System.IO;",
			       "using System.Linq;", "using System.Text;",
			       "using System.Threading.Tasks;") },
	/* PascalCase: a function (camelCase) never takes the name again */
	{ R_IMPORT, B_JS, LIST("const fs = require('fs');", "const path = require('path');",
			       "const `I = require('./`w');", "const { `I } = require('`w');") },
	{ R_IMPORT, B_GO, LIST("\t\"errors\"", "\t\"fmt\"", "\t\"io\"", "\t\"os\"", "\t\"strings\"",
			       "\t\"sync\"", "\t\"time\"") },
	{ R_IMPORT, B_RS, LIST("use std::collections::HashMap;", "use std::fs;",
			       "use std::io::{self, Read, Write};", "use std::path::Path;",
			       "use std::sync::Arc;") },
	{ R_IMPORT, B_PHP, LIST("namespace App\\`N;", "use App\\`N\\`N;", "use RuntimeException;") },
	{ R_IMPORT, B_PY, LIST("import argparse", "import json", "import logging", "import os",
			       "import re", "import sys", "from collections import defaultdict",
			       "from pathlib import Path") },
	{ R_IMPORT, B_SH, LIST("set -e", "set -u", "PATH=/usr/local/bin:/usr/bin:/bin",
			       "`U=\"${`U:-`w}\"") },
	{ R_IMPORT, B_PL, LIST("use strict;", "use warnings;", "use File::Basename;",
			       "use Getopt::Long;", "use POSIX qw(floor ceil);") },
	{ R_IMPORT, B_RB, LIST("require 'json'", "require 'fileutils'", "require 'set'",
			       "require_relative '`w'") },
	{ R_IMPORT, B_CSS, LIST("@import url(\"`w.css\");", "@charset \"utf-8\";") },

	{ R_OPEN, B_CPP, LIST("namespace `L {\n") },
	{ R_OPEN, B_JAVA, LIST("public class `N {\n") },
	{ R_OPEN, B_CS, LIST("namespace `N\n{\n    public class `N\n    {\n") },
	{ R_CLOSE, B_CPP, LIST("}  // namespace `L") },
	{ R_CLOSE, B_JAVA, LIST("}") },
	{ R_CLOSE, B_CS, LIST("    }\n}") },
	{ R_CLOSE, B_PY, LIST("if __name__ == \"__main__\":\n    main()") },

	{ R_FN_OPEN, B_C, LIST("static `t `f(`t `v, `t `v)`>{") },
	{ R_FN_OPEN, B_CPP, LIST("`t `f(const `t &`v, `t `v)`>{") },
	{ R_FN_OPEN, B_JAVA, LIST("public `t `f(`t `v, `t `v) {") },
	{ R_FN_OPEN, B_CS, LIST("public `t `I(`t `v, `t `v)`>{") },
	{ R_FN_OPEN, B_JS, LIST("function `f(`v, `v) {") },
	{ R_FN_OPEN, B_GO, LIST("func `f(`v `t, `v `t) (`t, error) {") },
	{ R_FN_OPEN, B_RS, LIST("pub fn `f(`v: `t, `v: `t) -> `t {") },
	{ R_FN_OPEN, B_PHP, LIST("function `f($`v, $`v)`>{") },
	{ R_FN_OPEN, B_PY, LIST("def `f(`v, `v):") },
	{ R_FN_OPEN, B_SH, LIST("`f() {") },
	{ R_FN_OPEN, B_PL, LIST("sub `f {") },
	{ R_FN_OPEN, B_RB, LIST("def `f(`v, `v)") },
	{ R_FN_OPEN, B_CSS, LIST(".`f, .`f `w {") },
	{ R_FN_PROLOGUE, B_PL, LIST("my ($`v, $`v) = @_;") },
	{ R_FN_CLOSE, B_BRACE | B_SH | B_CSS, LIST("}") },
	{ R_FN_CLOSE, B_RB, LIST("end") },
	{ R_PROTO, B_C, LIST("`t `f(`t `v, `t `v);") },
	{ R_PROTO, B_CPP, LIST("`t `f(const `t &`v, `t `v);") },

	{ R_STMT, B_C, LIST("`t `v = `n;", "`v = `v + `n;", "`v += `c(`v, `n);", "`c(`v, `v);",
			    "`v = `v->`i;", "`v[`n] = `v;", "memset(`v, 0, sizeof(*`v));",
			    "printf(\"`s: %d\\n\", `v);", "`v->`i = `v;", "`v = `c(`v);",
			    "if (`v < 0)`>`+return -EINVAL;`-", "`v++;") },
	{ R_STMT, B_CPP, LIST("auto `v = `c(`v);", "`v.push_back(`v);",
			      "std::cout << \"`s \" << `v << std::endl;", "`v += `n;",
			      "`t `v = `v * `n;", "`v = std::max(`v, `v);", "`v.clear();",
			      "std::sort(`v.begin(), `v.end());",
			      "if (`v.empty())`>`+return `v;`-") },
	{ R_STMT, B_JAVA, LIST("`t `v = `c(`v);", "`v = `v + `n;",
			       "System.out.println(\"`s \" + `v);", "`v.add(`v);", "this.`v = `v;",
			       "`v += `n;", "Objects.requireNonNull(`v, \"`s\");") },
	{ R_STMT, B_CS, LIST("var `v = `c(`v);", "`v = `v + `n;",
			     "Console.WriteLine(\"`s {0}\", `v);", "`v.Add(`v);", "`v += `n;") },
	/* JS: var (here and in loops), as a parameter or a local may be declared again */
	{ R_STMT, B_JS, LIST("var `v = `c(`v, `n);", "var `v = `v + `n;", "`v.push(`v);",
			     "console.log('`s', `v);", "`v = `v || {};", "`v += `n;",
			     "if (!`v) {`+`>return null;`-`>}") },
	{ R_STMT, B_GO, LIST("`v := `c(`v, `n)", "`v += `n", "fmt.Printf(\"`s: %v\\n\", `v)",
			     "if err != nil {`+`>return nil, err`-`>}", "`v = append(`v, `v)",
			     "defer `v.Close()") },
	{ R_STMT, B_RS, LIST("let `v = `c(`v, `n);", "let mut `v = `v + `n;", "`v += `n;",
			     "println!(\"`s {}\", `v);", "`v.push(`v);", "let `v = `v.len();") },
	{ R_STMT, B_PHP, LIST("$`v = `c($`v, `n);", "$`v[] = $`v;",
			      "echo \"`s \" . $`v . \"\\n\";", "$`v = $`v + `n;",
			      "$`v = array_merge($`v, $`v);") },
	{ R_STMT, B_PY, LIST("`v = `c(`v, `n)", "`v += `n", "print(\"`s\", `v)", "`v.append(`v)",
			     "`v = [x for x in `v if x]", "`v = `v.get(\"`w\", `n)") },
	{ R_STMT, B_SH, LIST("local `v=\"$1\"", "`v=$((`v + `n))", "echo \"`s: $`v\"",
			     "`c \"$`v\" >/dev/null", "[ -n \"$`v\" ] || return 1") },
	{ R_STMT, B_PL, LIST("my $`v = `c($`v, `n);", "$`v += `n;", "print \"`s: $`v\\n\";",
			     "push @`v, $`v;", "$`v{`w} = $`v;") },
	{ R_STMT, B_RB, LIST("`v = `c(`v, `n)", "`v += `n", "puts \"`s #{`v}\"", "`v << `v",
			     "`v = `v.map { |x| x * `n }") },
	{ R_STMT, B_CSS, LIST("margin: `npx;", "padding: `npx `npx;", "font-size: `npx;",
			      "display: block;", "color: #333;",
			      "background: url(\"`w.png\") no-repeat;", "border: 1px solid #ccc;",
			      "text-align: center;", "width: `n%;", "line-height: 1.5;") },

	{ R_IF_OPEN, B_C | B_CPP | B_JS, LIST("if (`v > `n) {") },
	{ R_IF_OPEN, B_JAVA, LIST("if (`v != null) {") },
	{ R_IF_OPEN, B_CS, LIST("if (`v != null)`>{") },
	{ R_IF_OPEN, B_GO | B_RS, LIST("if `v > `n {") },
	{ R_IF_OPEN, B_PHP | B_PL, LIST("if ($`v > `n) {") },
	{ R_IF_OPEN, B_PY, LIST("if `v > `n:") },
	{ R_IF_OPEN, B_SH, LIST("if [ \"$`v\" -gt `n ]; then") },
	{ R_IF_OPEN, B_RB, LIST("if `v > `n") },
	{ R_IF_CLOSE, B_BRACE, LIST("}") },
	{ R_IF_CLOSE, B_SH, LIST("fi") },
	{ R_IF_CLOSE, B_RB, LIST("end") },
	{ R_LOOP_OPEN, B_C, LIST("for (`v = 0; `v < `n; `v++) {") },
	{ R_LOOP_OPEN, B_CPP, LIST("for (const auto &`v : `v) {") },
	{ R_LOOP_OPEN, B_JAVA, LIST("for (int `v = 0; `v < `n; `v++) {") },
	{ R_LOOP_OPEN, B_CS, LIST("foreach (var `v in `v)`>{") },
	{ R_LOOP_OPEN, B_JS, LIST("for (var `v of `v) {") },
	{ R_LOOP_OPEN, B_GO, LIST("for _, `v := range `v {") },
	{ R_LOOP_OPEN, B_RS, LIST("for `v in 0..`n {") },
	{ R_LOOP_OPEN, B_PHP, LIST("foreach ($`v as $`v) {") },
	{ R_LOOP_OPEN, B_PY, LIST("for `v in `v:") },
	{ R_LOOP_OPEN, B_SH, LIST("for `v in `s; do") },
	{ R_LOOP_OPEN, B_PL, LIST("foreach my $`v (@`v) {") },
	{ R_LOOP_OPEN, B_RB, LIST("`v.each do |`v|") },
	{ R_LOOP_CLOSE, B_BRACE, LIST("}") },
	{ R_LOOP_CLOSE, B_SH, LIST("done") },
	{ R_LOOP_CLOSE, B_RB, LIST("end") },
	{ R_RET, B_CLIKE, LIST("return `v;") },
	{ R_RET, B_GO, LIST("return `v, nil") },
	{ R_RET, B_RS | B_RB, LIST("`v") },
	{ R_RET, B_PHP | B_PL, LIST("return $`v;") },
	{ R_RET, B_PY, LIST("return `v") },
	{ R_RET, B_SH, LIST("return 0") },

	{ R_REC_OPEN, B_C, LIST("struct `i {") },
	{ R_REC_OPEN, B_CPP, LIST("struct `I {") },
	{ R_REC_OPEN, B_JAVA, LIST("private static final class `I {") },
	{ R_REC_OPEN, B_CS, LIST("private sealed class `I`>{") },
	{ R_REC_OPEN, B_JS, LIST("exports.`i = {") },	/* may come again: no const */
	{ R_REC_OPEN, B_GO, LIST("type `I struct {") },
	{ R_REC_OPEN, B_RS, LIST("pub struct `I {") },
	{ R_REC_OPEN, B_PHP, LIST("class `I`>{") },
	{ R_REC_OPEN, B_PY, LIST("class `I:") },
	{ R_REC_OPEN, B_RB, LIST("class `I") },
	{ R_REC_FIELD, B_C | B_CPP, LIST("`t `i;") },
	{ R_REC_FIELD, B_JAVA, LIST("private `t `i;") },
	{ R_REC_FIELD, B_CS, LIST("public `t `I { get; set; }") },
	{ R_REC_FIELD, B_JS, LIST("`i: `n,") },
	{ R_REC_FIELD, B_GO, LIST("`I `t") },
	{ R_REC_FIELD, B_RS, LIST("pub `i: `t,") },
	{ R_REC_FIELD, B_PHP, LIST("private $`i;") },
	{ R_REC_FIELD, B_PY, LIST("`i = `n") },
	{ R_REC_FIELD, B_RB, LIST("attr_reader :`i") },
	{ R_REC_CLOSE, B_C | B_CPP | B_JS, LIST("};") },
	{ R_REC_CLOSE, B_JAVA | B_CS | B_GO | B_RS | B_PHP, LIST("}") },
	{ R_REC_CLOSE, B_RB, LIST("end") },
	{ R_KONST, B_C, LIST("#define `U `n") },
	{ R_KONST, B_CPP, LIST("constexpr int k`I = `n;") },
	{ R_KONST, B_JAVA, LIST("private static final int `U = `n;") },
	{ R_KONST, B_CS, LIST("private const int `I = `n;") },
	{ R_KONST, B_JS, LIST("exports.`U = `n;") },
	{ R_KONST, B_PHP, LIST("const `U = `n;") },
	{ R_KONST, B_GO, LIST("const `I = `n") },
	{ R_KONST, B_RS, LIST("const `U: u32 = `n;") },
	{ R_KONST, B_PY | B_RB, LIST("`U = `n") },
	{ R_KONST, B_SH, LIST("`U=`n") },
	{ R_KONST, B_PL, LIST("use constant `U => `n;") },

	{ R_TYPE, B_C, LIST("int", "unsigned int", "long", "size_t", "char *", "const char *",
			    "uint32_t", "uint64_t", "double", "struct `i *", "void *", "ssize_t",
			    "uint8_t *") },
	{ R_TYPE, B_CPP, LIST("int", "std::string", "std::size_t", "bool", "double",
			      "std::vector<int>", "std::uint64_t", "std::map<std::string, int>",
			      "`I") },
	{ R_TYPE, B_JAVA, LIST("int", "long", "String", "boolean", "double", "List<String>",
			       "Map<String, Integer>", "`I") },
	{ R_TYPE, B_CS, LIST("int", "long", "string", "bool", "double", "List<string>", "`I") },
	{ R_TYPE, B_GO, LIST("int", "string", "[]byte", "bool", "float64", "uint64", "*`I",
			     "map[string]int") },
	{ R_TYPE, B_RS, LIST("u32", "u64", "usize", "i64", "&str", "String", "Vec<u8>", "bool",
			     "f64") },
	{ R_TYPE, B_JS | B_PHP | B_HASH | B_CSS, LIST("") },
	{ R_CALL, B_C, LIST("strlen", "malloc", "free", "memcmp", "strcmp", "abs", "close", "atoi",
			    "fflush", "puts") },
	{ R_CALL, B_CPP, LIST("std::abs", "std::to_string", "std::move", "std::size", "`v.size") },
	{ R_CALL, B_JAVA, LIST("Math.max", "String.valueOf", "Integer.parseInt", "`i", "`i") },
	{ R_CALL, B_CS, LIST("Math.Max", "Convert.ToString", "int.Parse", "`I") },
	{ R_CALL, B_JS, LIST("Math.max", "JSON.stringify", "Object.keys", "parseInt", "`i") },
	{ R_CALL, B_GO, LIST("strings.TrimSpace", "len", "fmt.Sprint", "`i", "`I") },
	{ R_CALL, B_RS, LIST("std::cmp::max", "`i", "`i") },
	{ R_CALL, B_PHP, LIST("count", "strlen", "intval", "`i") },
	{ R_CALL, B_PY, LIST("len", "sorted", "int", "str", "os.path.join", "`i") },
	{ R_CALL, B_SH, LIST("grep -q", "mkdir -p", "rm -f", "cat", "test -f", "`i") },
	{ R_CALL, B_PL, LIST("length", "scalar", "int", "`i") },
	{ R_CALL, B_RB, LIST("Integer", "format", "`i") },
	{ R_CALL, B_CSS, LIST("") },
};

static struct lang lang_tab[NLANG];

static uint8_t *lang_pool;

static pthread_once_t lang_once = PTHREAD_ONCE_INIT;

static int lang_err;

static int is_code(char c)
{
	return c && strchr("iIUwvtnsmcfNGL>+-", c) != NULL;
}

/* Compile template t at *at; returns where it starts. */
static const uint8_t *tpl_compile(const char *t, uint8_t **at)
{
	uint8_t *start = *at, *p = *at;

	while (*t) {
		size_t n = 0;

		if (t[0] == '`' && is_code(t[1])) {
			*p++ = (uint8_t)(OP_CODE | (uint8_t)t[1]);
			t += 2;
			continue;
		}
		/* a literal run: up to the next code (a stray backquote is a letter) */
		while (t[n] && n < LIT_MAX && !(n && t[n] == '`' && is_code(t[n + 1])))
			n++;
		*p++ = (uint8_t)n;
		memcpy(p, t, n);
		p += n;
		t += n;
	}
	*p++ = 0;
	*at = p;
	return start;
}

static void lang_compile(void)
{
	size_t need = 16;
	uint8_t *p;

	for (size_t i = 0; i < NELEM(lang_rows); i++)
		for (const char *const *t = lang_rows[i].t; *t; t++)
			need += 2 * strlen(*t) + 2;
	lang_pool = p = calloc(1, need * NLANG);
	if (!lang_pool) {
		lang_err = -ENOMEM;
		return;
	}
	for (unsigned l = 0; l < NLANG; l++) {
		struct lang *lg = &lang_tab[l];

		lg->camel = langs[l].camel;
		lg->depth0 = langs[l].depth0;
		for (size_t i = 0; i < NELEM(lang_rows); i++) {
			unsigned role = lang_rows[i].role;

			if (!(lang_rows[i].langs & (1u << l)))
				continue;
			for (const char *const *t = lang_rows[i].t; *t; t++) {
				if (role < R_ONE) {
					/* one non-empty template a role */
					if (lg->raw[role] || !**t || t[1]) {
						lang_err = -EINVAL;
						return;
					}
					lg->raw[role] = *t;
					lg->one[role] = tpl_compile(*t, &p);
				} else if (lg->nlist[role - R_ONE] < LIST_MAX) {
					lg->list[role - R_ONE][lg->nlist[role - R_ONE]++] =
						tpl_compile(*t, &p);
				} else {
					lang_err = -EINVAL;
				}
			}
		}
		/* every language needs an indentation, a line comment and every list */
		if (!lg->raw[R_IND] || !lg->raw[R_LC])
			lang_err = -EINVAL;
		for (unsigned k = 0; k < NLIST; k++)
			if (!lg->nlist[k])
				lang_err = -EINVAL;
		if (lang_err)
			return;
		lg->ind_len = (unsigned)strlen(lg->raw[R_IND]);
		for (unsigned k = 0; k + lg->ind_len <= IND_PAD; k += lg->ind_len)
			memcpy(lg->ind + k, lg->raw[R_IND], lg->ind_len);
		lg->ind_max = IND_PAD / lg->ind_len * lg->ind_len;
	}
}

int lang_init(void)
{
	pthread_once(&lang_once, lang_compile);
	return lang_err;
}

/* Which language an extension is written in; c headers get prototypes. */
static const struct {
	const char *ext;
	uint8_t lang;
	uint8_t header;
} lang_exts[] = {
	{ "c", LANG_C, 0 }, { "h", LANG_C, 1 }, { "y", LANG_C, 0 }, { "l", LANG_C, 0 },
	{ "idl", LANG_C, 1 }, { "inc", LANG_C, 1 }, { "def", LANG_C, 1 }, { "rc", LANG_C, 1 },
	{ "dts", LANG_C, 1 }, { "m", LANG_C, 0 },
	{ "cpp", LANG_CPP, 0 }, { "cc", LANG_CPP, 0 }, { "cxx", LANG_CPP, 0 },
	{ "c++", LANG_CPP, 0 }, { "mm", LANG_CPP, 0 }, { "hpp", LANG_CPP, 1 },
	{ "hh", LANG_CPP, 1 }, { "hxx", LANG_CPP, 1 }, { "inl", LANG_CPP, 0 },
	{ "java", LANG_JAVA, 0 }, { "kt", LANG_JAVA, 0 }, { "scala", LANG_JAVA, 0 },
	{ "groovy", LANG_JAVA, 0 }, { "cs", LANG_CS, 0 },
	{ "js", LANG_JS, 0 }, { "jsx", LANG_JS, 0 }, { "mjs", LANG_JS, 0 },
	{ "ts", LANG_JS, 0 }, { "tsx", LANG_JS, 0 },
	{ "go", LANG_GO, 0 }, { "rs", LANG_RS, 0 }, { "php", LANG_PHP, 0 },
	{ "py", LANG_PY, 0 }, { "pyw", LANG_PY, 0 }, { "pyx", LANG_PY, 0 },
	{ "sh", LANG_SH, 0 }, { "bash", LANG_SH, 0 }, { "zsh", LANG_SH, 0 },
	{ "ksh", LANG_SH, 0 }, { "csh", LANG_SH, 0 }, { "awk", LANG_SH, 0 },
	{ "tcl", LANG_SH, 0 }, { "r", LANG_SH, 0 },
	{ "pl", LANG_PL, 0 }, { "pm", LANG_PL, 0 }, { "t", LANG_PL, 0 },
	{ "rb", LANG_RB, 0 }, { "rake", LANG_RB, 0 },
	{ "css", LANG_CSS, 0 }, { "less", LANG_CSS, 0 }, { "scss", LANG_CSS, 0 },
};

const struct lang *lang_of(const char *ext, int *header)
{
	/* the extensions above are in lower case: their first letter rules most out */
	const int first = tolower((unsigned char)ext[0]);

	for (size_t i = 0; i < NELEM(lang_exts); i++) {
		if (lang_exts[i].ext[0] == first && !strcasecmp(lang_exts[i].ext, ext)) {
			*header = lang_exts[i].header;
			return &lang_tab[lang_exts[i].lang];
		}
	}
	*header = 0;
	return &lang_tab[LANG_C];
}
