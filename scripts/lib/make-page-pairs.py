#!/usr/bin/env python3
"""make-page-pairs.py DEST COUNT HEIGHT
   make-page-pairs.py --picture DEST

Builds the trees a CI job's visual diff compares, from real documentation
pages: the HTML manual Debian's libimage-exiftool-perl ships
(/usr/share/doc/libimage-exiftool-perl/html, the COUNT largest pages),
rendered by headless Chromium at 1280xHEIGHT, as a CI job screenshots its
docs site. DEST/base/ is the last release's, DEST/shots/ today's, with the
kinds of change CI really sees, by page i (i mod 12):

  0  removed button   a button the baseline has is gone (its place kept)
  1  recoloured link  one link of the page drawn red
  2  warning box      a yellow warning box drawn over the text
  3-5 noise           the page rendered a fraction of a pixel to the right
                      (0.2, 0.3, 0.4 px): every glyph's anti-aliasing changes
  6-7 shift           the banner at the top 1-3 px taller: the page below
                      moves down
  8  resized          the page rendered 48 px taller
  9-11 identical      the same file (hard link), as a re-render that gave
                      the same bytes

0-2 are the real regressions. DEST/kinds.tsv names each pair's kind;
DEST/differ.txt lists both sides of every pair whose bytes differ (what the
decode floor decodes). Made once; a DEST that has .made is left alone.
"""
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys

DOCS = "/usr/share/doc/libimage-exiftool-perl/html"
KINDS = ["button", "link", "warning", "noise", "noise", "noise", "shift", "shift", "resized",
         "identical", "identical", "identical"]


def pages(count):
    found = []
    for folder, _, names in os.walk(DOCS):
        found += [os.path.join(folder, n) for n in names if n.endswith(".html")]
    found.sort(key=lambda p: (-os.path.getsize(p), p))
    if len(found) < count:
        sys.exit(f"make-page-pairs.py: {DOCS} has {len(found)} pages, not {count} (is libimage-exiftool-perl installed?)")
    return found[:count]


def page_html(source, css="", script=""):
    """The page with its base address kept, a banner at the top, and what the change adds."""
    html = open(source, encoding="utf-8", errors="replace").read()
    head = f'<base href="file://{os.path.dirname(source)}/"><style>{css}</style>'
    m = re.search(r"<head[^>]*>", html, re.I)
    html = html[:m.end()] + head + html[m.end():] if m else head + html
    return html + f"<script>{script}</script>\n"


def banner(height, text=""):
    return ("const b = document.createElement('div'); b.style.cssText = 'height:%dpx;background:#e8eef6;"
            "border-bottom:1px solid #b8c4d6;font:bold 15px DejaVu Sans;color:#2a3f5f;padding-left:24px;"
            "line-height:40px;box-sizing:border-box'; b.textContent = '%s'; document.body.prepend(b);"
            % (height, text))


def render(html_path, png_path, width, height):
    subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                    f"--window-size={width},{height}", f"--screenshot={png_path}", f"file://{html_path}"],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
    if not os.path.exists(png_path) or os.path.getsize(png_path) == 0:
        sys.exit(f"make-page-pairs.py: chromium made no screenshot of {html_path}")


def picture(dest):
    """--picture DEST: the trees of docs/visual-diff.md's picture, at 1280x1400: a
    removed button, the same change (the version in the banner) on three pages,
    a page moved down 2 px by a taller banner, and sub-pixel noise."""
    for sub in ("base", "shots", "html"):
        os.makedirs(os.path.join(dest, sub), exist_ok=True)
    jobs = []
    chosen = [p for p in pages(40) if "/TagNames/" in p][:6]  # pages of one style sheet
    old, new = "ExifTool 12.57 documentation", "ExifTool 12.58 documentation"
    plan = [("button", old, old), ("version", old, new), ("version", old, new), ("version", old, new),
            ("shift", old, old), ("noise", old, old)]
    for i, (source, (kind, before, after)) in enumerate(zip(chosen, plan)):
        name = "%s-%s.png" % (kind, os.path.splitext(os.path.basename(source))[0])
        base_script, shot_script, shot_css = banner(40, before), banner(40, after), ""
        if kind == "button":
            base_script += ("const k = document.createElement('button'); k.textContent = 'Download';"
                            "k.style.cssText = 'position:absolute;top:6px;right:40px;padding:5px 16px;font:14px DejaVu Sans;"
                            "background:#2b6cb0;color:#fff;border:0;border-radius:4px'; document.body.append(k);")
        elif kind == "shift":
            shot_script = banner(42, after)
        elif kind == "noise":
            shot_css = "html{transform:translateX(0.3px)}"
        for side, css, script in (("base", "", base_script), ("shots", shot_css, shot_script)):
            html = os.path.join(dest, "html", f"{side}-{i}.html")
            with open(html, "w", encoding="utf-8") as f:
                f.write(page_html(source, css, script))
            jobs.append((os.path.abspath(html), os.path.abspath(os.path.join(dest, side, name)), 1280, 1400))
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        list(pool.map(lambda job: render(*job), jobs))


def main():
    if sys.argv[1] == "--picture":
        return picture(sys.argv[2])
    dest, count, height = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    if os.path.exists(os.path.join(dest, ".made")):
        return
    for sub in ("base", "shots", "html"):
        shutil.rmtree(os.path.join(dest, sub), ignore_errors=True)
        os.makedirs(os.path.join(dest, sub))
    jobs, kinds, links = [], [], []
    for i, source in enumerate(pages(count)):
        kind = KINDS[i % len(KINDS)]
        name = "%02d-%s.png" % (i, os.path.splitext(os.path.relpath(source, DOCS))[0].replace("/", "-"))
        kinds.append((name, kind))
        top, left = 240 + i * 137 % (height - 480), 180 + i * 89 % 760
        base_script, shot_script, shot_css, shot_height = banner(40), banner(40), "", height
        if kind == "button":
            base_script += ("const k = document.createElement('button'); k.textContent = 'Download';"
                            "k.style.cssText = 'position:absolute;top:%dpx;left:%dpx;padding:6px 16px;font:14px DejaVu Sans;"
                            "background:#2b6cb0;color:#fff;border:0;border-radius:4px'; document.body.append(k);" % (top, left))
        elif kind == "link":
            shot_script += ("const v = [...document.links].filter(a => { const r = a.getBoundingClientRect();"
                            " return r.width > 20 && r.top > 60 && r.bottom < %d; });"
                            " if (v.length) v[%d %% v.length].style.color = '#d0021b';" % (height, i))
        elif kind == "warning":
            shot_script += ("const w = document.createElement('div'); w.textContent = 'Warning: this page describes a "
                            "deprecated option.'; w.style.cssText = 'position:absolute;top:%dpx;left:%dpx;width:380px;"
                            "padding:10px 14px;font:14px DejaVu Sans;background:#fff4c2;border:1px solid #d9a400;"
                            "color:#5c4400'; document.body.append(w);" % (top, left))
        elif kind == "noise":
            shot_css = "html{transform:translateX(0.%dpx)}" % (2 + i % 3)
        elif kind == "shift":
            shot_script = banner(40 + 1 + i % 3)
        elif kind == "resized":
            shot_height = height + 48
        for side, css, script, h in (("base", "", base_script, height), ("shots", shot_css, shot_script, shot_height)):
            if side == "shots" and kind == "identical":
                links.append(name)
                continue
            html = os.path.join(dest, "html", f"{side}-{i:02d}.html")
            with open(html, "w", encoding="utf-8") as f:
                f.write(page_html(source, css, script))
            jobs.append((os.path.abspath(html), os.path.abspath(os.path.join(dest, side, name)), 1280, h))
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        list(pool.map(lambda job: render(*job), jobs))
    for name in links:
        os.link(os.path.join(dest, "base", name), os.path.join(dest, "shots", name))
    with open(os.path.join(dest, "kinds.tsv"), "w") as f:
        f.writelines(f"{name}\t{kind}\n" for name, kind in kinds)
    with open(os.path.join(dest, "differ.txt"), "w") as f:
        for name, kind in kinds:
            a, b = (os.path.abspath(os.path.join(dest, side, name)) for side in ("base", "shots"))
            if open(a, "rb").read() != open(b, "rb").read():
                f.write(f"{a}\n{b}\n")
    open(os.path.join(dest, ".made"), "w").close()
    print(f"{count} pairs of 1280x{height} pages in {dest}/base and {dest}/shots")


if __name__ == "__main__":
    main()
