/* html_page.js - draws imprint's --html report from its JSON block with Chart.js (built into the program) */
/*
 * The figures are the JSON object in <script id="imprint-data"> (keys in
 * src/report/html.h): plan, create, measure and content hold the same
 * objects as the commands' --json output; extra holds what only the page
 * draws.  Each figure is a chart with its numbers in a table beside it;
 * the table is the chart's text alternative.  Nothing is fetched: the
 * page's Content-Security-Policy forbids any request.
 *
 * Opened with "#selftest", the page writes, once drawn, a line a chart
 * into <pre id="selftest">: the chart's id and how many of its pixels
 * are not blank (the test reads it through headless Chromium).
 */
'use strict';

const D = JSON.parse(document.getElementById('imprint-data').textContent);
const R = D.measure || D.plan || null;     /* the tree's figures */
const FIT = (D.measure && D.measure.size_ks_d !== undefined) ? D.measure : D.plan;
const X = D.extra || {};
/* relative luminance about 0.05, 0.23 and 0.56: told apart in grey too */
const DARK = '#0b3d91', MID = '#3f88c5', LIGHT = '#f0c05a';
const main = document.getElementById('report');
const charts = [];
let figNo = 0;

Chart.defaults.animation = false;
Chart.defaults.font.size = 12;
Chart.defaults.color = '#222';

function el(tag, attrs, text) {
	const e = document.createElement(tag);
	for (const k in attrs || {})
		e.setAttribute(k, attrs[k]);
	if (text !== undefined)
		e.textContent = text;
	return e;
}

function num(v, digits) {
	if (v === null || v === undefined)
		return '-';
	if (typeof v !== 'number')
		return String(v);
	if (Number.isInteger(v) && digits === undefined)
		return String(v);
	return v.toFixed(digits === undefined ? 4 : digits);
}

function human(bytes) {
	const u = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
	let i = 0, v = bytes;
	while (v >= 1024 && i < u.length - 1) {
		v /= 1024;
		i++;
	}
	return (i ? v.toFixed(2) : String(v)) + ' ' + u[i];
}

function sizeLabel(b) {
	return b === 0 ? '0' : human(Math.pow(2, b - 1)) + '..';
}

function section(title, id) {
	const s = el('section', { id: 'sec-' + id });
	s.appendChild(el('h2', {}, title));
	main.appendChild(s);
	return s;
}

function note(parent, text) {
	parent.appendChild(el('p', { class: 'note' }, text));
}

/* A table: head is a list of column names, rows lists of cells (a cell: text, or [text, class]). */
function table(caption, head, rows) {
	const t = el('table');
	t.appendChild(el('caption', {}, caption));
	const tr = el('tr');
	head.forEach(h => tr.appendChild(el('th', { scope: 'col' }, h)));
	t.appendChild(tr);
	rows.forEach(r => {
		const row = el('tr');
		r.forEach(c => {
			const td = Array.isArray(c) ? el('td', { class: c[1] }, c[0]) : el('td', {}, c);
			row.appendChild(td);
		});
		t.appendChild(row);
	});
	return t;
}

/*
 * A figure: a chart (type, labels, datasets, axis titles, log x) with a
 * text alternative, and its table beside it.
 */
function figure(parent, f) {
	const id = 'fig' + (++figNo);
	const box = el('div', { class: 'fig', id: id + '-box' });
	const plot = el('div', { class: 'plot' });
	const canvas = el('canvas', { id: id, role: 'img', 'aria-label': f.title + ': ' + f.alt });
	canvas.appendChild(el('p', {}, f.alt));
	plot.appendChild(canvas);
	box.appendChild(plot);
	const side = el('div', { class: 'side' });
	side.appendChild(table(f.title, f.head, f.rows));
	box.appendChild(side);
	parent.appendChild(box);
	const cfg = {
		type: f.type || 'bar',
		data: { labels: f.labels, datasets: f.datasets },
		options: {
			responsive: true, maintainAspectRatio: false,
			plugins: { title: { display: true, text: f.title },
				   legend: { display: f.datasets.length > 1 } },
			scales: {
				x: { type: f.logx ? 'logarithmic' : (f.linearx ? 'linear' : 'category'),
				     title: { display: true, text: f.xtitle } },
				y: { beginAtZero: true, title: { display: true, text: f.ytitle } },
			},
		},
	};
	if (f.indexAxis === 'y') {
		/* horizontal bars: the categories run down the y axis */
		cfg.options.indexAxis = 'y';
		cfg.options.scales = {
			y: { type: 'category', ticks: { autoSkip: false }, title: { display: true, text: f.xtitle } },
			x: { beginAtZero: true, title: { display: true, text: f.ytitle } },
		};
	}
	if (f.ymax !== undefined)
		cfg.options.scales.y.max = f.ymax;
	charts.push({ id: id, chart: new Chart(canvas, cfg) });
}

function bars(label, data, colour, dashed) {
	return { label: label, data: data, backgroundColor: colour, borderColor: colour,
		 borderWidth: dashed ? 2 : 0, borderDash: dashed ? [6, 4] : [] };
}

function line(label, data, colour, dashed) {
	return { label: label, data: data, borderColor: colour, backgroundColor: colour,
		 borderWidth: 2, pointRadius: 0, borderDash: dashed ? [6, 4] : [], stepped: false };
}

function shareOf(v, total) {
	return total ? v / total : 0;
}

/* ---- headline ---------------------------------------------------------- */

function headline() {
	const what = { plan: 'plan (no image)', create: 'image built by imprint create',
		       measure: 'image measured', 'content-report': 'content measured',
		       profile: 'source profiled (measured against its profile)' }[D.kind];
	const target = (D.create && D.create.target) || (D.measure && D.measure.target) ||
		(D.content && D.content.target) || '';
	document.title = 'imprint ' + D.kind + (target ? ': ' + target : '');
	main.appendChild(el('h1', {}, 'imprint report: ' + (target || 'plan')));
	const s = section('Configuration and headline figures', 'head');
	const rows = [['kind', what || D.kind], ['imprint', D.version]];
	const seed = (D.create && D.create.seed) ?? (FIT && FIT.seed);
	if (seed !== undefined)
		rows.push(['seed', String(seed)]);
	const src = R || D.content || {};
	[['files', 'files'], ['dirs', 'directories'], ['links', 'links']].forEach(k => {
		if (src[k[0]] !== undefined)
			rows.push([k[1], String(src[k[0]])]);
	});
	if (src.bytes !== undefined)
		rows.push(['bytes', String(src.bytes) + ' (' + human(src.bytes) + ')']);
	if (D.create) {
		rows.push(['file system', D.create.fs + ', ' + human(D.create.size)]);
		rows.push(['build time', num(D.create.seconds, 3) + ' s, ' + num(D.create.mb_per_s, 1) + ' MB/s']);
	}
	if (D.measure && D.measure.layout_score !== undefined && D.measure.layout_score !== null)
		rows.push(['layout score', num(D.measure.layout_score, 6)]);
	s.appendChild(table('Headline', ['figure', 'value'], rows));
	s.appendChild(el('h3', {}, 'Command that wrote this page'));
	s.appendChild(el('pre', { id: 'command' }, D.command));
	if (D.regenerate) {
		/* the configuration is in the here-document: one block to copy */
		const d = el('details');
		s.appendChild(el('h3', {}, 'To build the image again'));
		d.appendChild(el('summary', {}, D.regenerate.split('\n')[0] +
				 ' (the resolved configuration follows: open to copy)'));
		d.appendChild(el('pre', { id: 'regenerate' }, D.regenerate));
		s.appendChild(d);
	}
	if (D.kind === 'profile' && D.config) {
		/* the profile itself: statistics only, as -o wrote it */
		const d = el('details');
		s.appendChild(el('h3', {}, 'The profile'));
		d.appendChild(el('summary', {}, 'imprint create -c PROFILE IMAGE builds a look-alike ' +
				 '(open to read or copy it)'));
		d.appendChild(el('pre', { id: 'profile' }, D.config));
		s.appendChild(d);
	}
	(D.notes || []).forEach(n => note(s, n));
}

/* ---- the tree ---------------------------------------------------------- */

function sizes(s) {
	const c = X.size_cdf;
	if (c) {
		/* the dashed model over the achieved line (a lower order is drawn later) */
		const ds = [Object.assign(line('achieved', c.achieved, DARK, false), { order: 2, borderWidth: 4 })];
		if (c.model)
			ds.push(Object.assign(line('model', c.model, LIGHT, true), { order: 1 }));
		const rows = [['files', String(R.files)], ['mean', human(Math.round(R.mean_size))],
			      ['median', human(R.median_size)], ['max', human(R.max_size)],
			      ['empty files (share)', num(c.empty_share, 4)]];
		if (FIT && FIT.size_ks_d !== undefined) {
			rows.push(['K-S D', [num(FIT.size_ks_d, 6), FIT.size_ks_d > FIT.size_ks_critical_01 ? 'bad' : '']]);
			rows.push(['K-S critical (1%)', num(FIT.size_ks_critical_01, 6)]);
		}
		figure(s, { title: 'File size CDF', type: 'line', logx: true, labels: c.x, datasets: ds,
			    xtitle: 'file size (bytes, log scale)', ytitle: 'share of files at or below',
			    ymax: 1, head: ['figure', 'value'], rows: rows,
			    alt: 'cumulative share of files by size, achieved' + (c.model ? ' against the model' : '') });
	}
	const k = X.size_classes;
	if (k) {
		const total = k.bytes.reduce((a, b) => a + b, 0);
		const labels = k.files.map((_, b) => sizeLabel(b));
		figure(s, { title: 'Bytes by size class', labels: labels,
			    datasets: [bars('share of bytes', k.bytes.map(v => shareOf(v, total)), DARK)],
			    xtitle: 'file size class (from)', ytitle: 'share of bytes',
			    head: ['size', 'files', 'bytes', 'share'],
			    rows: labels.map((l, b) => [l, String(k.files[b]), String(k.bytes[b]),
						      num(shareOf(k.bytes[b], total), 4)]),
			    alt: 'share of all bytes held by files of each power-of-two size class' });
	}
}

function targetFigure(s, title, xtitle, labels, target, achieved, counts, unit) {
	const ds = [bars('achieved', achieved, DARK)];
	if (target)
		ds.push(bars('target', target, LIGHT));
	const head = target ? [xtitle, 'target', 'achieved'] : [xtitle, unit, 'share'];
	const rows = labels.map((l, i) => target ? [String(l), num(target[i], 4), num(achieved[i], 4)] :
				[String(l), String(counts[i]), num(achieved[i], 4)]);
	figure(s, { title: title, labels: labels, datasets: ds, xtitle: xtitle,
		    ytitle: 'share of ' + unit, head: head, rows: rows,
		    alt: 'share of ' + unit + ' by ' + xtitle + (target ? ', achieved against target' : '') });
}

function tree(s) {
	if (FIT && FIT.depth_target) {
		targetFigure(s, 'Files by depth', 'depth', FIT.depth_target.map((_, i) => i),
			     FIT.depth_target, FIT.depth_achieved, null, 'files');
	} else if (R.files_by_depth) {
		const n = R.files_by_depth.reduce((a, b) => a + b, 0);
		targetFigure(s, 'Files by depth', 'depth', R.files_by_depth.map((_, i) => i), null,
			     R.files_by_depth.map(v => shareOf(v, n)), R.files_by_depth, 'files');
	}
	if (FIT && FIT.fpd_target) {
		const l = FIT.fpd_target.map((_, i) => i === FIT.fpd_target.length - 1 ? 'tail' : i);
		targetFigure(s, 'Files per directory', 'files in the directory', l, FIT.fpd_target,
			     FIT.fpd_achieved, null, 'directories');
	} else if (R.dirs_by_files) {
		const n = R.dirs_by_files.reduce((a, b) => a + b, 0);
		const l = R.dirs_by_files.map((_, i) => i === R.dirs_by_files.length - 1 ? '>' + (i - 1) : i);
		targetFigure(s, 'Files per directory', 'files in the directory', l, null,
			     R.dirs_by_files.map(v => shareOf(v, n)), R.dirs_by_files, 'directories');
	}
	if (X.dirs_by_depth) {
		const c = X.dirs_by_depth, n = c.reduce((a, b) => a + b, 0);
		targetFigure(s, 'Directories by depth', 'depth', c.map((_, i) => i), null,
			     c.map(v => shareOf(v, n)), c, 'directories');
	}
	if (FIT && FIT.ext_top) {
		targetFigure(s, 'Top extensions', 'extension', FIT.ext_top.map(e => e.ext || '(none)'),
			     FIT.ext_top.map(e => e.target), FIT.ext_top.map(e => e.achieved), null, 'files');
	} else if (R.ext_top) {
		targetFigure(s, 'Top extensions', 'extension', R.ext_top.map(e => e.ext || '(none)'), null,
			     R.ext_top.map(e => e.share), R.ext_top.map(e => e.files), 'files');
	}
	if (X.name_lengths) {
		const f = X.name_lengths.files, d = X.name_lengths.dirs;
		const n = Math.max(f.length, d.length), l = [...Array(n).keys()];
		const nf = f.reduce((a, b) => a + b, 0), nd = d.reduce((a, b) => a + b, 0);
		figure(s, { title: 'Name lengths', labels: l,
			    datasets: [bars('files (hard links too)', l.map(i => shareOf(f[i] || 0, nf)), DARK),
				       bars('directories', l.map(i => shareOf(d[i] || 0, nd)), LIGHT)],
			    xtitle: 'name length (bytes)', ytitle: 'share of names',
			    head: ['length', 'files', 'directories'],
			    rows: l.filter(i => f[i] || d[i]).map(i => [String(i), String(f[i] || 0), String(d[i] || 0)]),
			    alt: 'share of file and directory names by length in bytes' });
	}
	ages(s);
}

function ages(s) {
	const a = X.age_histogram;
	if (!a)
		return;
	const n = a.files.reduce((x, y) => x + y, 0);
	const labels = a.edges_days.map((e, i) => i + 1 < a.edges_days.length ? e + '..' + a.edges_days[i + 1] : e + '..');
	const ds = [bars('achieved', a.files.map(v => shareOf(v, n)), DARK)];
	if (a.target)
		ds.push(bars('model', a.target, LIGHT));
	const rows = labels.map((l, i) => [l, String(a.files[i]), num(shareOf(a.files[i], n), 4)]
				.concat(a.target ? [num(a.target[i], 4)] : []));
	figure(s, { title: 'File ages', labels: labels, datasets: ds,
		    xtitle: 'age (days before the reference time)', ytitle: 'share of files',
		    head: ['days', 'files', 'share'].concat(a.target ? ['model'] : []), rows: rows,
		    alt: 'share of files by modification age in power-of-two day bins' });
	if (R.age_days) {
		const q = R.age_days;
		s.appendChild(table('File age quantiles (days)', ['quantile', 'days'],
			['p1', 'p10', 'p25', 'median', 'p75', 'p90', 'p99', 'max'].map(k => [k, num(q[k], 1)])));
	}
}

function fit(s) {
	if (!FIT || FIT.size_ks_d === undefined) {
		note(s, 'No fit report: no configuration to compare with (measure --against CONFIG gives one).');
		return;
	}
	const rows = [
		['size K-S D', num(FIT.size_ks_d, 6), num(FIT.size_ks_critical_01, 6),
		 FIT.size_ks_d <= FIT.size_ks_critical_01 ? 'pass' : ['FAIL', 'bad']],
		['depth K-S D', num(FIT.depth_ks_d, 6), num(FIT.depth_ks_critical_01, 6),
		 FIT.depth_ks_d <= FIT.depth_ks_critical_01 ? 'pass' : ['FAIL', 'bad']],
		['extension share, max |diff|', num(FIT.ext_max_abs_diff, 6), FIT.ext_worst || '-', ''],
		['files/dir share, max |diff|', num(FIT.fpd_max_abs_diff, 6), '-', ''],
	];
	/* a profile's tables and parameters, when it sets them (measure --against) */
	for (const [label, key] of [['file modes, max |diff|', 'mode_files'],
				    ['dir modes, max |diff|', 'mode_dirs'],
				    ['subdirs/dir share, max |diff|', 'subdirs']])
		if (FIT[key + '_max_abs_diff'] !== undefined)
			rows.push([label, num(FIT[key + '_max_abs_diff'], 6), FIT[key + '_worst'], '']);
	for (const [label, key] of [['root-owned share', 'root_owned'],
				    ['empty dirs share', 'empty_dirs']])
		if (FIT[key + '_achieved'] !== undefined)
			rows.push([label, num(FIT[key + '_achieved'], 6), 'target ' + num(FIT[key + '_target'], 6), '']);
	for (const [label, key] of [['age K-S D', 'age'], ['name length K-S D', 'name_length'],
				    ['name.ext length K-S D', 'name_ext_length']])
		if (FIT[key + '_ks_d'] !== undefined)
			rows.push([label, num(FIT[key + '_ks_d'], 6), '-', '']);
	figure(s, { title: 'Fit: K-S D and share differences', labels: rows.slice(0, 4).map(r => r[0]),
		    datasets: [bars('achieved', [FIT.size_ks_d, FIT.depth_ks_d, FIT.ext_max_abs_diff, FIT.fpd_max_abs_diff], DARK),
			       bars('critical value (1%)', [FIT.size_ks_critical_01, FIT.depth_ks_critical_01, null, null], LIGHT)],
		    xtitle: 'statistic', ytitle: 'D or |share difference|',
		    head: ['statistic', 'value', 'critical / worst', 'verdict'], rows: rows,
		    alt: 'Kolmogorov-Smirnov distances of sizes and depths against their 1% critical values, and the largest share differences' });
}

/* ---- layout ------------------------------------------------------------ */

function layout(s) {
	const m = D.measure;
	if (!m || m.layout_score === null || m.layout_score === undefined) {
		note(s, D.measure ? 'Not measured: the file system does not report extents (FIEMAP).'
			: 'No layout: a plan has none (imprint create or imprint measure draws it).');
		return;
	}
	const rows = [['layout score', num(m.layout_score, 6)],
		      ['target', m.layout_score_target === undefined ? '-' :
		       m.layout_score_target === null ? '(aged)' : num(m.layout_score_target, 6)],
		      ['files of two or more blocks', String(m.layout_files)],
		      ['fragmented files', String(m.fragmented_files)],
		      ['extents', String(m.extents)]];
	const epf = m.extents_per_file;
	const l = epf.map((_, i) => i === 33 ? '>32' : String(i));
	let last = epf.length;
	while (last > 2 && !epf[last - 1])
		last--;
	figure(s, { title: 'Extents per file', labels: l.slice(0, last),
		    datasets: [bars('files', epf.slice(0, last), DARK)],
		    xtitle: 'extents (fragments) of the file', ytitle: 'files',
		    head: ['figure', 'value'], rows: rows.concat(l.slice(0, last).map((x, i) => [x + ' extents', String(epf[i])])),
		    alt: 'number of files by their count of extents' });
	const fs = m.fragment_size_histogram || [];
	if (fs.length)
		figure(s, { title: 'Fragment sizes of fragmented files', labels: fs.map((_, b) => String(Math.pow(2, b)) + '..'),
			    datasets: [bars('fragments', fs, DARK)], xtitle: 'fragment size (blocks, from)',
			    ytitle: 'fragments', head: ['blocks', 'fragments'],
			    rows: fs.map((v, b) => [String(Math.pow(2, b)) + '..', String(v)]),
			    alt: 'fragments of fragmented files by size in power-of-two block classes' });
	else
		note(s, 'No fragmented file: no fragment sizes to draw.');
	free(s, m);
	diskMap(s, X.disk_map, m.block_size);
	aging(s);
}

function free(s, m) {
	const h = m.free_extent_histogram;
	if (!h) {
		note(s, 'Free space: not known for a mounted tree.');
		return;
	}
	const labels = h.map(b => human(b.min_bytes) + '..');
	const rows = h.map((b, i) => [labels[i], String(b.extents), String(b.blocks), num(shareOf(b.blocks, m.free_blocks), 4)]);
	rows.push(['below ' + human(m.chunk_bytes) + ' (share)', '', m.free_frag_share_target === undefined ? '' :
		   'target ' + num(m.free_frag_share_target, 4), num(m.free_small_share, 4)]);
	figure(s, { title: 'Free extents (e2freefrag buckets)', labels: labels,
		    datasets: [bars('share of free blocks', h.map(b => shareOf(b.blocks, m.free_blocks)),
				    h.map(b => b.min_bytes < m.chunk_bytes ? LIGHT : DARK))],
		    xtitle: 'free extent size (from)', ytitle: 'share of free blocks',
		    head: ['extent size', 'extents', 'blocks', 'share'], rows: rows,
		    alt: 'share of free blocks by free-extent size class; extents below the chunk size (' +
			 human(m.chunk_bytes) + ') in the lighter colour, the target shape being the share below it' });
}

/* luminance 0.04, 0.53, 0.22, 1 and 0.75 (unknown only where free space is not known) */
const MAP_COLOURS = { m: '#3a3a3a', c: '#8cc8f0', f: '#d55e00', '.': '#ffffff', u: '#e0e0e0' };
const MAP_NAMES = { m: 'metadata', c: 'contiguous files', f: 'fragmented files', '.': 'free', u: 'not file data (unknown)' };

function diskMap(s, map, bs) {
	if (!map)
		return;
	/* a row (a block group) wraps in lines of at most 1024 cells */
	const w = map.cells_per_row, h = map.rows.length, count = {};
	const wrap = Math.ceil(w / 1024), lw = Math.ceil(w / wrap);
	const scale = Math.max(1, Math.min(4, Math.floor(1100 / lw)));
	const lineH = Math.max(1, Math.min(24, Math.floor(800 / (h * wrap))));
	const gap = lineH >= 3 ? 2 : 0, rowH = wrap * lineH + gap;
	const box = el('div', { class: 'fig', id: 'diskmap-box' });
	const plot = el('div', { class: 'plot map' });
	const canvas = el('canvas', { id: 'diskmap', class: 'diskmap', width: lw * scale, height: h * rowH, role: 'img' });
	const ctx = canvas.getContext('2d');
	map.rows.forEach((r, y) => {
		let x = 0;
		for (const m of r.matchAll(/([cfmu.])(\d+)/g)) {
			let n = Number(m[2]);
			ctx.fillStyle = MAP_COLOURS[m[1]];
			count[m[1]] = (count[m[1]] || 0) + n;
			while (n > 0) {
				const col = x % lw, k = Math.min(n, lw - col);
				ctx.fillRect(col * scale, y * rowH + Math.floor(x / lw) * lineH, k * scale, lineH);
				x += k;
				n -= k;
			}
		}
	});
	const total = Object.values(count).reduce((a, b) => a + b, 0);
	const alt = 'map of the disk: ' + h + ' strips of ' + (map.row_blocks) + ' blocks' +
		(map.group_blocks ? ' (block groups)' : '') + (wrap > 1 ? ' in ' + wrap + ' lines each' : '') +
		', each cell ' + map.cell_blocks +
		' blocks coloured by what holds most of it: ' +
		Object.keys(count).map(k => MAP_NAMES[k] + ' ' + (100 * count[k] / total).toFixed(1) + '%').join(', ');
	canvas.setAttribute('aria-label', alt);
	plot.appendChild(el('h3', {}, 'Disk map'));
	plot.appendChild(canvas);
	const leg = el('p', { class: 'legend' });
	Object.keys(MAP_NAMES).filter(k => count[k]).forEach(k => {
		const sp = el('span');
		const sw = el('i');
		sw.style.background = MAP_COLOURS[k];
		sp.appendChild(sw);
		sp.appendChild(document.createTextNode(MAP_NAMES[k]));
		leg.appendChild(sp);
	});
	plot.appendChild(leg);
	plot.appendChild(el('p', { class: 'note' }, alt));
	box.appendChild(plot);
	const side = el('div', { class: 'side' });
	side.appendChild(table('Disk map cells', ['class', 'cells', 'share'],
		Object.keys(count).map(k => [MAP_NAMES[k], String(count[k]), num(count[k] / total, 4)])
			.concat([['block size', String(bs), ''], ['blocks a cell', String(map.cell_blocks), '']])));
	box.appendChild(side);
	s.appendChild(box);
	charts.push({ id: 'diskmap', canvas: canvas });
}

function aging(s) {
	const a = D.create && D.create.age_series;
	if (!a || !a.length) {
		if (D.plan_age_rounds)
			note(s, 'Aged offline: the layout score of each round is not kept (aging through the kernel, the mounted backend, keeps it).');
		return;
	}
	figure(s, { title: 'Aging: layout score per round', type: 'line', labels: a.map(r => r.round),
		    datasets: [line('layout score', a.map(r => r.layout_score), DARK, false)],
		    xtitle: 'round', ytitle: 'layout score', ymax: 1,
		    head: ['round', 'score', 'fragmented', 'free'],
		    rows: a.map(r => [String(r.round), num(r.layout_score, 6), String(r.fragmented_files),
				      num(shareOf(r.free_blocks, r.total_blocks), 4)]),
		    alt: 'image-wide layout score after each aging round' });
}

/* ---- content ----------------------------------------------------------- */

function content(s) {
	const c = D.content;
	if (!c) {
		note(s, 'Content not measured here: imprint content-report --html FILE TARGET draws it.');
		return;
	}
	const g = Object.keys(c.groups).filter(k => k !== 'all' && c.groups[k].files);
	const tg = c.targets;
	const tgt = k => k === 'binary' ? tg.compress_ratio : k === 'executable' ? tg.compress_ratio_exec : null;
	figure(s, { title: 'Compression ratio by group', labels: g,
		    datasets: [bars('zlib', g.map(k => c.groups[k].compress_ratio_zlib), DARK),
			       bars('zstd', g.map(k => c.groups[k].compress_ratio_zstd), MID),
			       bars('target', g.map(tgt), LIGHT)],
		    xtitle: 'group of files (by extension)', ytitle: 'bytes / compressed bytes',
		    head: ['group', 'files', 'zlib', 'zstd', 'target'],
		    rows: g.map(k => [k, String(c.groups[k].files), num(c.groups[k].compress_ratio_zlib, 3),
				      num(c.groups[k].compress_ratio_zstd, 3), num(tgt(k), 3)]),
		    alt: 'zlib and zstd compression ratios of each group of files, with the targets of other binary files and executables' });
	const sh = [['duplicate files', c.dup_file_share, tg.dup_file_share],
		    ['duplicate blocks', c.dup_block_share, tg.dup_block_share],
		    ['zero blocks', c.zero_block_share, tg.zero_block_share]];
	if (c.typed_identified_share !== null)
		sh.push(['typed files identified', c.typed_identified_share, tg.typed_identified_share]);
	figure(s, { title: 'Duplicate and zero shares', labels: sh.map(r => r[0]),
		    datasets: [bars('achieved', sh.map(r => r[1]), DARK), bars('target', sh.map(r => r[2]), LIGHT)],
		    xtitle: 'figure', ytitle: 'share', head: ['figure', 'target', 'achieved'],
		    rows: sh.map(r => [r[0], num(r[2], 4), num(r[1], 4)]),
		    alt: 'shares of duplicate files, duplicate blocks, zero blocks and identified typed files, achieved against target' });
	const mix = Object.entries(c.type_mix).slice(0, 20);
	if (mix.length)
		figure(s, { title: 'Type mix (libmagic)', labels: mix.map(m => m[0]), indexAxis: 'y',
			    datasets: [bars('share of files', mix.map(m => m[1]), DARK)],
			    xtitle: 'MIME type', ytitle: 'share of files', head: ['MIME type', 'share'],
			    rows: mix.map(m => [m[0], num(m[1], 4)]),
			    alt: 'share of files by the MIME type libmagic gives, the 20 commonest' });
}

/* ---- the page ---------------------------------------------------------- */

function selftest(ms) {
	const out = el('pre', { id: 'selftest' });
	out.textContent = 'drawn-ms ' + ms.toFixed(0) + '\n';
	charts.forEach(c => {
		const canvas = c.canvas || c.chart.canvas;
		const px = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
		let ink = 0;
		for (let i = 0; i < px.length; i += 4)
			if (px[i + 3] && (px[i] < 250 || px[i + 1] < 250 || px[i + 2] < 250))
				ink++;
		out.textContent += c.id + ' ' + canvas.width + 'x' + canvas.height + ' ' + ink + '\n';
	});
	document.body.appendChild(out);
}

window.addEventListener('error', e => {
	const p = el('p', { class: 'note', id: 'page-error' }, 'error drawing the page: ' + e.message);
	document.body.insertBefore(p, document.body.firstChild);
});

headline();
if (R) {
	sizes(section('File sizes', 'sizes'));
	tree(section('Tree, names and ages', 'tree'));
	fit(section('Fit against the model', 'fit'));
}
if (D.kind !== 'content-report')
	layout(section('Layout', 'layout'));
if (D.kind !== 'plan')
	content(section('Content', 'content'));
if (location.hash === '#selftest')
	selftest(performance.now());
