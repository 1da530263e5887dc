# pictures.py - helpers the picture tests (64N-*) share: an SVG must be
# well-formed XML (xmllint), render with rsvg-convert to a PNG of the size
# the SVG declares, and not be blank.  PNG checked without PIL: the IHDR
# gives the size, the inflated IDAT the pixels.
import re, shutil, struct, subprocess, zlib

SVG = '{http://www.w3.org/2000/svg}'


def tools_missing():
    """the tools the checks need that are not installed (a skip names them)"""
    return [t for t in ('xmllint', 'rsvg-convert') if not shutil.which(t)]


def xml_ok(path, html=False):
    r = subprocess.run(['xmllint', '--noout', path], capture_output=True, text=True)
    return r.returncode == 0, r.stderr.strip()[:300]


def png_info(path):
    """(width, height, the inflated IDAT: filter byte and pixels per row)"""
    data = open(path, 'rb').read()
    assert data[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
    pos, idat = 8, b''
    w = h = 0
    while pos < len(data):
        n, typ = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if typ == b'IHDR':
            w, h = struct.unpack('>II', body[:8])
        elif typ == b'IDAT':
            idat += body
        pos += 12 + n
    return w, h, zlib.decompress(idat)


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
    return ''


def data_attrs(el):
    """data-foo-bar="1" -> {'foo_bar': '1'}"""
    return {k[5:].replace('-', '_'): v for k, v in el.attrib.items() if k.startswith('data-')}
