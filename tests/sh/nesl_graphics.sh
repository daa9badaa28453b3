#!/usr/bin/env bash
# nesl_graphics.sh — the window graphics library (NESL.md 5.19, basis/60_graphics.nesl) draws
# into SVG files: a convex-hull demo in the style of the NESL distribution's writes one
# well-formed picture holding every point and hull edge inside its box, then stops at
# w_get_input with a clear error; every drawing function leaves its element; file names come
# from the window title, in NESL_DRAW_DIR or the current directory; drawing in parallel is a
# static error and an unwritable directory a run-time one.
cd "$(dirname "$0")/../.."
. tests/sh/common.bash
nessie=$(cd "$bin" && pwd)/nessie

# well-formed XML: xmllint where installed, else Python's parser, else the outline
wellformed() {
  if command -v xmllint >/dev/null; then
    xmllint --noout "$1" 2>&1
  elif command -v python3 >/dev/null; then
    python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' "$1" 2>&1
  else
    head -n 1 "$1" | grep -q '^<?xml' && [ "$(tail -n 1 "$1")" = '</svg>' ] || echo "not an SVG outline"
  fi
}
count() { grep -o "<$1[ >]" "$2" | wc -l | tr -d ' '; }

# ---- a convex-hull demo ----
cat >"$tmp/hull.nesl" <<'EOF'
function cross_product(o, line) =
  let (xo, yo) = o; ((x1, y1), (x2, y2)) = line
  in (x1 - xo) * (y2 - yo) - (y1 - yo) * (x2 - xo) $
function hsplit(points, p1, p2) =
  let cross = {cross_product(p, (p1, p2)) : p in points};
      packed = {p in points; c in cross | plusp(c)}
  in if #packed < 2 then [p1] ++ packed
     else let pm = points[max_index(cross)]
          in flatten({hsplit(packed, p1, p2) : p1 in [p1, pm]; p2 in [pm, p2]}) $
function convex_hull(points) =
  let x = {x : (x, y) in points};
      minx = points[min_index(x)];
      maxx = points[max_index(x)]
  in hsplit(points, minx, maxx) ++ hsplit(points, maxx, minx) $
function random_points(n) =
  let points = {rand(i) - 1.0, rand(i) - 1.0 : i in dist(2.0, n)}
  in {x, y in points | x^2 + y^2 < 1.0} $
function hull_demo(points) =
  let w = w_make_window(((0, 0), (300, 300)), "convex hull", w_white, display);
      (w, box) = w_add_box(((20, 20), (260, 260)), w_bounding_box(points), "hull", w_white, w);
      a = w_draw_points(points, w_black, box);
      hull = convex_hull(points);
      b = w_draw_segments({(p1, p2) : p1 in hull; p2 in rotate(hull, 1)}, 2, w_red, box);
      c = w_get_input(w)
  in w_kill_window(w) $
pts = random_points(400) $
print_line(@(#pts, #convex_hull(pts))) $
hull_demo(pts) $
EOF
mkdir "$tmp/draw"
out=$(NESL_DRAW_DIR="$tmp/draw" "$nessie" run "$tmp/hull.nesl" 2>&1)
status=$?
svg="$tmp/draw/convex_hull.svg"
[ $status = 1 ] || bad "hull demo: exit $status, expected 1 (w_get_input): $out"
case "$out" in
  *"W_GET_INPUT needs a user to click in an X11 window; Nessie draws into the file $tmp/draw/convex_hull.svg"*) ;;
  *) bad "hull demo: no w_get_input error naming the file: $out" ;;
esac
counts=$(echo "$out" | sed -n 's/^(\([0-9]*\), \([0-9]*\))$/\1 \2/p')
read -r npts nhull <<<"$counts"
if [ ! -f "$svg" ]; then
  bad "hull demo: no $svg (files: $(ls "$tmp/draw"))"
else
  err=$(wellformed "$svg") || bad "hull demo: $svg is not well-formed: $err"
  [ -z "$err" ] || bad "hull demo: $svg is not well-formed: $err"
  [ -n "${npts:-}" ] && [ "$npts" -gt 100 ] || bad "hull demo: point count not printed: $out"
  [ "$(count circle "$svg")" = "${npts:-x}" ] || bad "hull demo: $(count circle "$svg") circles for $npts points"
  [ "$(count line "$svg")" = "${nhull:-x}" ] || bad "hull demo: $(count line "$svg") lines for $nhull hull points"
  [ "$(count rect "$svg")" = 2 ] || bad "hull demo: $(count rect "$svg") rects (background, box)"
  grep -q "<svg xmlns='http://www.w3.org/2000/svg' width='300' height='300'" "$svg" ||
    bad "hull demo: no 300x300 svg element"
  grep -q '<title>convex hull</title>' "$svg" || bad "hull demo: no title"
  # every point and hull corner inside the box: pixels 20..280 both ways (y counted down)
  outside=$(grep -o "c[xy]='[-0-9.]*'\|[xy][12]='[-0-9.]*'" "$svg" | sed "s/.*='\(.*\)'/\1/" |
    awk '$1 < 19.99 || $1 > 280.01' | head -n 3)
  [ -z "$outside" ] || bad "hull demo: coordinates outside the box: $outside"
  # hull edges are red, 2 pixels wide; points black
  [ "$(grep -c "<line .*stroke='#ff0000' stroke-width='2'/>" "$svg")" = "${nhull:-x}" ] ||
    bad "hull demo: hull edges not red and 2 wide"
  [ "$(grep -c "<circle .*fill='#000000'/>" "$svg")" = "${npts:-x}" ] || bad "hull demo: points not black"
fi

# ---- every drawing function; the title names the file; text is escaped ----
cat >"$tmp/all.nesl" <<'EOF'
function all_kinds(x) =
  let w = w_make_window(((0, 0), (400, 300)), "all <&> kinds", w_light_blue, display);
      (w, box) = w_add_box(((10, 10), (200, 200)), ((0.0, 0.0), 10.0, 10.0), "plot", w_white, w);
      (w, tbox) = w_add_text_box(((220, 10), (170, 100)), "text", w_yellow, w);
      w = w_add_button(((220, 150), (80, 20)), "go", w_gray, w);
      w = w_add_button_stack(((310, 270), (80, 20)), 5, ["one", "two", "three"], w_green, w);
      w = w_add_text((10, 280), "label", w_black, w);
      a = w_draw_point((1.0, 1.0), w_red, box);
      b = w_draw_big_point((2.0, 2.0), 8, w_blue, box);
      c = w_draw_string((5.0, 5.0), "x<y & \"z\"", w_black, box);
      d = w_draw_rectangle(((1.0, 1.0), 3.0, 2.0), 3, w_magenta, box);
      e = w_shade_rectangle(((6.0, 6.0), 2.0, 2.0), w_orange, box);
      g = w_shade_polygon([(0.0, 0.0), (10.0, 0.0), (5.0, 10.0)], w_pink, box);
      h = w_write_text_centered("centred", w_black, tbox);
      i = w_write_text_left("left", w_black, tbox);
      j = w_write_paragraph("a paragraph of several words that wraps onto more lines", w_black, tbox);
      k = w_clear_box(w_get_named_box("plot", w));
      (w, box2) = w_reset_box_size("plot", ((0.0, 0.0), 1.0, 1.0), w);
      l = w_draw_segments([((0.0, 0.0), (1.0, 1.0))], 1, w_purple, box2);
      m = w_bounds_from_box(box2)
  in (m, w_kill_window(w)) $
all_kinds(0) $
function nameless(x) = w_kill_window(w_make_window(((0, 0), (10, 10)), "", w_black, display)) $
nameless(0) $
EOF
mkdir "$tmp/cwd"
out=$(cd "$tmp/cwd" && env -u NESL_DRAW_DIR "$nessie" run "$tmp/all.nesl" 2>&1) ||
  bad "all kinds: exit $?: $out"
[ "$(echo "$out" | sed -n 2p)" = 'it = (((0.0, 0.0), 1.0, 1.0), T) : ((float, float), float, float), bool' ] ||
  bad "all kinds: output $out"
svg="$tmp/cwd/all_____kinds.svg"
if [ ! -f "$svg" ]; then
  bad "all kinds: no $svg in the current directory (files: $(ls "$tmp/cwd"))"
else
  err=$(wellformed "$svg") || bad "all kinds: $svg is not well-formed: $err"
  [ -z "$err" ] || bad "all kinds: $svg is not well-formed: $err"
  # rects: background, box, text box, 4 buttons, outline, shading, cleared box, reset box
  [ "$(count rect "$svg")" = 11 ] || bad "all kinds: $(count rect "$svg") rects, expected 11"
  [ "$(count circle "$svg")" = 2 ] || bad "all kinds: $(count circle "$svg") circles, expected 2"
  [ "$(count polygon "$svg")" = 1 ] || bad "all kinds: no polygon"
  [ "$(count line "$svg")" = 1 ] || bad "all kinds: $(count line "$svg") lines, expected 1"
  # texts: 4 button labels, the label, the string, centred, left, and the paragraph's lines
  ntext=$(count text "$svg")
  [ "$ntext" -ge 11 ] || bad "all kinds: $ntext texts, expected at least 11"
  grep -q '<title>all &lt;&amp;&gt; kinds</title>' "$svg" || bad "all kinds: title not escaped"
  grep -q '>x&lt;y &amp; &quot;z&quot;</text>' "$svg" || bad "all kinds: string not escaped"
  # virtual (1, 1) of the box at (10, 10) (from the bottom), 200 pixels for 10 units, in a
  # window 300 high: x = 10 + 20, y = 300 - 10 - 20
  grep -q "^<circle cx='30' cy='270' r='1' fill='#ff0000'/>$" "$svg" || bad "all kinds: point misplaced"
  grep -q "^<polygon points='10,290 210,290 110,90 ' fill='#ffc0cb'/>$" "$svg" ||
    bad "all kinds: polygon misplaced"
  grep -q "^<rect x='130' y='130' width='40' height='40' fill='#ffa500'/>$" "$svg" ||
    bad "all kinds: shading misplaced"
  grep -q "stroke='#ff00ff' stroke-width='3'" "$svg" || bad "all kinds: no magenta outline"
  grep -q "<circle cx='[0-9.]*' cy='[0-9.]*' r='4' fill='#0000ff'/>" "$svg" || bad "all kinds: no big point"
fi
[ -f "$tmp/cwd/nesl_window.svg" ] || bad "empty title: no nesl_window.svg"

# ---- drawing is serial I/O; an unwritable directory is a run-time error ----
printf 'function h(b) = {w_draw_point(p, w_black, b) : p in [(1.0, 2.0)]} $\n' >"$tmp/par.nesl"
out=$("$nessie" check "$tmp/par.nesl" 2>&1)
[ $? = 1 ] && [[ "$out" == *"Cannot call W_DRAW_POINT in parallel."* ]] ||
  bad "drawing in parallel: $out"
printf 'function g(x) = w_make_window(((0, 0), (10, 10)), "w", w_white, display) $\ng(0) $\n' >"$tmp/dir.nesl"
out=$(NESL_DRAW_DIR="$tmp/none" "$nessie" run "$tmp/dir.nesl" 2>&1)
[ $? = 1 ] && [[ "$out" == *"error: Cannot write the picture file:"* ]] ||
  bad "missing NESL_DRAW_DIR: $out"
exit $fail
