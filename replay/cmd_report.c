// SPDX-License-Identifier: MIT
/*
 * cmd_report.c - extkit-replay report: one self-contained HTML page for a
 * bug report about a crashed filesystem: the timeline picture inline, then
 * what `history`, `orphans` and `apply --dry-run` print, each made by that
 * command's own code into a memory stream and written escaped.  No
 * scripts, no network: styles are inline, the SVG is in the page.  The
 * page is polyglot (well-formed XML and HTML) so xmllint checks it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "extkit.h"
#include "replay.h"

/* run @fn with its output captured as text, into a <pre> */
static int section(struct rp *r, struct ek_svg *s, const char *id, const char *head,
		   int (*fn)(struct rp *r))
{
	struct ek_out *saved = r->out;
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	int ret;

	if (!m)
		return fprintf(stderr, "%s: report: %s\n", r->prog, strerror(errno)), 1;
	r->out = ek_out_new(m, EK_OUT_TEXT);
	ret = r->out ? fn(r) : 1;
	ek_out_free(r->out);
	r->out = saved;
	fclose(m);
	ek_svg_begin(s, "h2");
	ek_svg_attr(s, "id", "%s", id);
	ek_svg_text(s, "%s", head);
	ek_svg_end(s);
	if (ret)
		ek_svg_begin(s, "p"), ek_svg_attr(s, "class", "warn"),
		ek_svg_text(s, "this step failed (exit status %d); what it printed follows", ret),
		ek_svg_end(s);
	ek_svg_begin(s, "pre");
	ek_svg_text_bytes(s, text ? text : "", len);
	ek_svg_end(s);
	free(text);
	return ret;
}

static int run_history(struct rp *r)
{
	return do_history(r, 1, NULL);
}

static int run_orphans(struct rp *r)
{
	return do_orphans(r, 1, NULL);
}

static int run_plan(struct rp *r)
{
	bool saved = r->dry_run;
	struct ek_fs *fs = r->fs;	/* apply borrows r->fs for its own image's warnings */
	int ret;

	r->dry_run = true;	/* what apply --dry-run prints; nothing written */
	ret = do_apply(r);
	r->dry_run = saved;
	r->fs = fs;
	return ret;
}

static const char style[] =
	"body{font-family:sans-serif;margin:1.5em;color:#222}"
	"pre{background:#f6f6f6;border:1px solid #ddd;padding:.6em;overflow-x:auto;font-size:12px}"
	"h2{border-bottom:1px solid #ccc;margin-top:1.6em}.warn{color:#b00}"
	"svg{max-width:100%;height:auto}";

int do_report(struct rp *r, int argc, char **argv)
{
	const char *name = strrchr(r->image, '/') ? strrchr(r->image, '/') + 1 : r->image;
	FILE *f;
	struct ek_svg s;
	int ret = 0, err;

	(void)argc, (void)argv;
	if (!r->html) {
		fprintf(stderr, "%s: report: name the page to write with --html FILE (- for stdout)\n",
			r->prog);
		return 2;
	}
	f = strcmp(r->html, "-") ? fopen(r->html, "w") : stdout;
	if (!f)
		return fprintf(stderr, "%s: cannot create '%s': %s\n", r->prog, r->html,
			       strerror(errno)), 1;
	fputs("<!DOCTYPE html>\n", f);
	ek_svg_init(&s, f, true);
	ek_svg_begin(&s, "html");
	ek_svg_attr(&s, "xmlns", "http://www.w3.org/1999/xhtml");
	ek_svg_attr(&s, "lang", "en");
	ek_svg_begin(&s, "head");
	ek_svg_begin(&s, "meta");
	ek_svg_attr(&s, "charset", "utf-8");
	ek_svg_end(&s);
	ek_svg_begin(&s, "title");
	ek_svg_text(&s, "extkit-replay report: %s", name);
	ek_svg_end(&s);
	ek_svg_begin(&s, "style");
	ek_svg_raw(&s, style, sizeof(style) - 1);
	ek_svg_end(&s);
	ek_svg_end(&s);
	ek_svg_begin(&s, "body");
	ek_svg_begin(&s, "h1");
	ek_svg_text(&s, "Journal report: %s", name);
	ek_svg_end(&s);
	ek_svg_begin(&s, "p");
	ek_svg_text(&s, "Made by extkit-replay %s from '%s' (read only). Sections: timeline, "
		    "history, orphans, apply plan.", EK_VERSION, r->image);
	ek_svg_end(&s);

	ek_svg_begin(&s, "h2");
	ek_svg_attr(&s, "id", "timeline");
	ek_svg_text(&s, "Timeline");
	ek_svg_end(&s);
	ek_svg_begin(&s, "div");
	ek_svg_attr(&s, "class", "timeline");
	ret |= timeline_draw(r, &s);
	ek_svg_end(&s);
	ret |= section(r, &s, "history", "History (replay history)", run_history);
	ret |= section(r, &s, "orphans", "Orphans (replay orphans)", run_orphans);
	/* a plan that refuses is still what a reader needs: not a failure here */
	section(r, &s, "plan", "Apply plan (replay apply --dry-run)", run_plan);
	err = ek_svg_finish(&s);
	if (f != stdout && fclose(f) && !err)
		err = -errno;
	if (err) {
		fprintf(stderr, "%s: cannot write '%s': %s\n", r->prog, r->html, ek_error_msg(err));
		return 1;
	}
	return ret ? 1 : 0;
}
