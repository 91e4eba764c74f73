/* log.c - logs: timestamped lines, in time order across units */
#include <string.h>

#include "content/gen.h"
#include "util/rng.h"
#include "content/text/text.h"

#define LOG_UNIT_MS	600000u			/* a unit spans ten minutes */
#define LOG_STEP_MS	(LOG_UNIT_MS / 128)	/* lines of >= 32 bytes: < 128 a unit */

static const char *const log_levels[] = {
	"INFO", "INFO", "INFO", "INFO", "INFO", "INFO", "INFO", "INFO", "INFO", "INFO",
	"INFO", "INFO", "INFO", "INFO", "DEBUG", "DEBUG", "DEBUG", "WARN", "WARN", "ERROR",
};

static void log_unit(const struct gen_file *g, const struct frame *fr, struct tw *w, uint64_t u,
		     size_t len)
{
	uint8_t *end = w->p + len;
	uint64_t d = rng_mix64(g->key ^ SALT_DOC ^ 0x1065), t0;
	unsigned style = (unsigned)(d % 3), nproc = 2 + (unsigned)((d >> 8) % 4);
	uint32_t host, proc[6], pid[6];
	struct trng fr_r = { rng_mix64(g->key ^ SALT_FRAME ^ 0x1065) };
	uint32_t names = MIN(IDENT_HI, w->tm->n) - IDENT_LO;

	w->rc = (struct recur){ 4, 56000, 16, 0, 0 };
	(void)fr;
	/* file-level: start time (2017..2025), host and programs */
	t0 = (UINT64_C(1483228800) + below(tnext(&fr_r), 252460800)) * 1000;
	host = IDENT_LO + (uint32_t)below(tnext(&fr_r), names);
	for (unsigned i = 0; i < nproc; i++) {
		proc[i] = IDENT_LO + (uint32_t)below(tnext(&fr_r), names);
		pid[i] = 100 + (uint32_t)below(tnext(&fr_r), 32000);
	}
	for (unsigned i = 0;; i++) {
		uint8_t *mark = w->p;
		size_t room = (size_t)(end - w->p), m;
		uint64_t x = tnext(&w->r);
		uint64_t ms = t0 + u * LOG_UNIT_MS + (uint64_t)i * LOG_STEP_MS +
			      below(x, LOG_STEP_MS / 2);
		uint64_t sec = ms / 1000;
		int64_t y;
		unsigned mo, da, k = (unsigned)((x >> 40) % nproc);

		if (w->p >= w->stop)
			return;
		text_civil((int64_t)(sec / 86400), &y, &mo, &da);
		if (style == 0) {
			/* syslog */
			put_str(w, text_month_abbr[mo - 1]);
			put_ch(w, ' ');
			if (da < 10)
				put_ch(w, ' ');
			text_put_dec(w, da, 1);
		} else {
			text_put_dec(w, (uint64_t)y, 4);
			put_ch(w, '-');
			text_put_dec(w, mo, 2);
			put_ch(w, '-');
			text_put_dec(w, da, 2);
		}
		put_ch(w, style == 2 ? 'T' : ' ');
		text_put_dec(w, sec / 3600 % 24, 2);
		put_ch(w, ':');
		text_put_dec(w, sec / 60 % 60, 2);
		put_ch(w, ':');
		text_put_dec(w, sec % 60, 2);
		if (style == 0) {
			put_ch(w, ' ');
			put_rank(w, host, 0);
			put_ch(w, ' ');
			put_rank(w, proc[k], 0);
			put_ch(w, 'd');
			put_ch(w, '[');
			text_put_dec(w, pid[k], 1);
			put_str(w, "]: ");
		} else {
			const char *lv = log_levels[(x >> 48) % NELEM(log_levels)];

			put_ch(w, style == 1 ? ',' : '.');
			text_put_dec(w, ms % 1000, 3);
			if (style == 2)
				put_ch(w, 'Z');
			put_ch(w, ' ');
			put_str(w, lv);
			text_put_chars(w, ' ', 6 - strlen(lv));
			put_ch(w, '[');
			put_rank(w, proc[k], 0);
			put_ch(w, '.');
			put_rank(w, text_name_word(w), 0);
			put_str(w, "] ");
		}
		if ((size_t)(w->p - mark) + 3 > room) {
			/* a unit too short for a line: words */
			w->p = mark;
			w->col = 0;
			text_put_text(w, room, T_PLAIN | T_NL);
			return;
		}
		m = 16 + below(x << 16, 90);
		if (room < (size_t)(w->p - mark) + m + 1 + 96)
			m = room - (size_t)(w->p - mark) - 1;
		text_put_text(w, m, 0);
		put_ch(w, '\n');
		if (w->p == end)
			return;
	}
}

const struct tfmt text_fmt_log = { .frame = NULL, .unit = log_unit };
