#!/usr/bin/env bash
# nesl_spawn.sh — spawn (NESL.md 5.16) passes a stream argument on to the command: its
# output lands in a file the program opened; a command that cannot start still returns
# streams (sh reports the error on the command's error stream); spawn is serial I/O.
cd "$(dirname "$0")/../.."
. tests/sh/common.bash
cat >"$tmp/file.nesl" <<EOF
function to_file(name) =
  let st = open_check(open_out_file(name));
      ((a, b, c), ok, msg) = spawn("echo into the file; echo done >&2", nullstr, st, nullstr);
      x = close_file(a);
      ((l, e), ok2, m2) = read_line(c);
      y = close_file(c);
      z = close_file(st)
  in (ok, l, read_string_from_file(name)) \$
to_file("$tmp/out.txt") \$
function missing(x) =
  let ((a, b, c), ok, msg) = spawn("/nonexistent/command", nullstr, nullstr, nullstr);
      ((l, e), ok2, m2) = read_line(c)
  in (ok, #l > 0) \$
missing(0) \$
EOF
out=$("$bin/nessie" run "$tmp/file.nesl" 2>&1) || bad "spawn into a file: exit $?: $out"
want='to_file = fn : [char] -> (bool, [char], [char])
it = (T, "done", "into the file
") : bool, [char], [char]
missing = fn : a -> (bool, bool) :: (a in any)
it = (T, T) : bool, bool'
[ "$out" = "$want" ] || bad "spawn: got
$out"
[ "$(cat "$tmp/out.txt" 2>/dev/null)" = "into the file" ] ||
  bad "spawn: the file holds '$(cat "$tmp/out.txt" 2>/dev/null)'"
printf 'function h(c) = {spawn(c, nullstr, nullstr, nullstr) : x in [1, 2]} $\n' >"$tmp/par.nesl"
out=$("$bin/nessie" check "$tmp/par.nesl" 2>&1)
[ $? = 1 ] && [[ "$out" == *"Cannot call SPAWN in parallel."* ]] || bad "spawn in parallel: $out"
exit $fail
