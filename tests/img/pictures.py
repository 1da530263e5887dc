# pictures.py - helpers the picture tests (64N-*) share: an SVG must be
# well-formed XML (xmllint), render with rsvg-convert to a PNG of the size
# the SVG declares, and not be blank; where a headless browser is installed
# (chromium-headless-shell, scripts/install-deps installs it) the browser's
# rendering must show the same picture as rsvg's.  PNG read without PIL:
# the IHDR gives the size, the inflated IDAT the pixels.
import os, re, shutil, struct, subprocess, tempfile, zlib

SVG = '{http://www.w3.org/2000/svg}'


def tools_missing():
    """the tools the checks need that are not installed (a skip names them)"""
    return [t for t in ('xmllint', 'rsvg-convert') if not shutil.which(t)]


def xml_ok(path, html=False):
    r = subprocess.run(['xmllint', '--noout', path], capture_output=True, text=True)
    return r.returncode == 0, r.stderr.strip()[:300]


def png_info(path):
    """(width, height, the inflated IDAT: filter byte and pixels per row)"""
    w, h, _, _, raw = png_read(path)
    return w, h, raw


def png_read(path):
    """(width, height, colour type, bit depth, inflated IDAT)"""
    data = open(path, 'rb').read()
    assert data[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
    pos, idat = 8, b''
    w = h = ctype = depth = 0
    while pos < len(data):
        n, typ = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if typ == b'IHDR':
            w, h, depth, ctype = struct.unpack('>IIBB', body[:10])
        elif typ == b'IDAT':
            idat += body
        pos += 12 + n
    return w, h, ctype, depth, zlib.decompress(idat)


def png_cells(path, cols=25, rows=20):
    """the PNG's mean grey level in a cols x rows grid (8-bit RGB or RGBA,
    the only kinds rsvg-convert and chromium write)"""
    w, h, ctype, depth, raw = png_read(path)
    bpp = {2: 3, 6: 4}.get(ctype)
    if depth != 8 or not bpp:
        raise ValueError('PNG colour type %d depth %d' % (ctype, depth))
    stride = w * bpp
    prev = bytearray(stride)
    sums = [0] * (cols * rows)
    counts = [0] * (cols * rows)
    pos = 0
    for y in range(h):
        f, line = raw[pos], bytearray(raw[pos + 1:pos + 1 + stride])
        pos += 1 + stride
        for i in range(stride):	# undo the row filter
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        prev = line
        cy = y * rows // h
        for x in range(0, w, 2):	# every other pixel is enough for a mean
            o = x * bpp
            grey = line[o] + line[o + 1] + line[o + 2]
            if bpp == 4:	# over white
                grey = (grey * line[o + 3] + 765 * (255 - line[o + 3])) // 255
            k = cy * cols + x * cols // w
            sums[k] += grey
            counts[k] += 3
    return [s / c if c else 255 for s, c in zip(sums, counts)]


BROWSERS = ('chromium-headless-shell', 'chromium', 'google-chrome')
# the browser check is slow (a browser start, pixels decoded in Python): the
# first few pictures of a test are compared, at half size
BROWSER_MAX = 3
browser_renders = 0


def browser():
    """the headless browser installed, or None"""
    for b in BROWSERS:
        if shutil.which(b):
            return b
    return None


def browser_shot(url, png, w, h, scale=1):
    """screenshot @url at w x h CSS pixels, scaled by @scale, into @png;
    '' or why not"""
    prof = tempfile.mkdtemp(prefix='ek-browser-')
    try:
        r = subprocess.run([browser(), '--headless', '--no-sandbox', '--disable-gpu',
                            '--hide-scrollbars', '--user-data-dir=' + prof,
                            '--force-device-scale-factor=%g' % scale,
                            '--window-size=%d,%d' % (w, h), '--screenshot=' + png, url],
                           capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return 'the browser did not finish in 120 s'
    finally:
        shutil.rmtree(prof, ignore_errors=True)
    if r.returncode or not os.path.exists(png):
        return 'the browser failed (exit %d): %s' % (r.returncode, r.stderr.strip()[-200:])
    return ''


def browser_dom(path):
    """the document as the browser parsed it (--dump-dom); (dom, why)"""
    prof = tempfile.mkdtemp(prefix='ek-browser-')
    try:
        r = subprocess.run([browser(), '--headless', '--no-sandbox', '--disable-gpu',
                            '--user-data-dir=' + prof, '--dump-dom',
                            'file://' + os.path.abspath(path)],
                           capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return '', 'the browser did not finish in 120 s'
    finally:
        shutil.rmtree(prof, ignore_errors=True)
    if r.returncode:
        return '', 'the browser failed (exit %d): %s' % (r.returncode, r.stderr.strip()[-200:])
    return r.stdout, ''


def same_picture(png_a, png_b):
    """'' when two renderings of one SVG show the same picture: the mean grey
    of each of 500 cells within 24 levels (fonts and anti-aliasing differ
    between renderers, bars, panels and colours do not)"""
    a, b = png_cells(png_a), png_cells(png_b)
    worst = max(abs(x - y) for x, y in zip(a, b))
    if worst > 24:
        k = max(range(len(a)), key=lambda i: abs(a[i] - b[i]))
        return 'a cell (column %d, row %d of 25x20) is grey %d in one and %d in the other' % (
            k % 25, k // 25, a[k], b[k])
    return ''


def browser_note():
    """the line a test prints about the browser check"""
    if browser():
        return 'browser: %d picture%s rendered by %s show%s what rsvg-convert draws' % (
            browser_renders, '' if browser_renders == 1 else 's', browser(),
            's' if browser_renders == 1 else '')
    return 'note: no headless browser (%s): pictures rendered by rsvg-convert only' % ' or '.join(BROWSERS)


def render_ok(svg, png):
    """render @svg to @png; '' or why it is not a good picture"""
    r = subprocess.run(['rsvg-convert', svg, '-o', png], capture_output=True, text=True)
    if r.returncode:
        return 'rsvg-convert failed: ' + r.stderr.strip()[:200]
    head = open(svg, encoding='utf-8', errors='replace').read(4096)
    m = re.search(r'<svg[^>]* width="([0-9.]+)" height="([0-9.]+)"', head)
    if not m:
        return 'no width/height on <svg>'
    want = (round(float(m.group(1))), round(float(m.group(2))))
    w, h, raw = png_info(png)
    if (w, h) != want:
        return 'PNG is %dx%d, the SVG says %dx%d' % (w, h, want[0], want[1])
    # one colour, whatever the row filters (none, sub, up, average, paeth),
    # leaves a handful of distinct byte values: the colour and zeros; a
    # picture has many
    distinct = len(set(raw))
    if distinct <= 16:
        return 'the PNG is blank (%d distinct bytes)' % distinct
    global browser_renders
    if browser() and browser_renders < BROWSER_MAX:
        half, shot = png + '.half.png', png + '.browser.png'
        r = subprocess.run(['rsvg-convert', '-z', '0.5', svg, '-o', half],
                           capture_output=True, text=True)
        why = 'rsvg-convert -z 0.5 failed' if r.returncode else ''
        why = why or browser_shot('file://' + os.path.abspath(svg), shot, *want, scale=0.5)
        why = why or same_picture(half, shot)
        if why:
            return 'in %s: %s' % (browser(), why)
        browser_renders += 1
    return ''


def data_attrs(el):
    """data-foo-bar="1" -> {'foo_bar': '1'}"""
    return {k[5:].replace('-', '_'): v for k, v in el.attrib.items() if k.startswith('data-')}
