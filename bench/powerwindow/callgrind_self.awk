# callgrind_self.awk — where a run's instructions go, per shared object, from a callgrind
# output file (`valgrind --tool=callgrind`).  callgrind_annotate merges functions of the same
# name across objects (every wrapper and test FMU has an fmi2DoStep, a do_step), so it cannot
# tell the adaptation layers apart; the raw file can: each cost line belongs to the object
# of the last `ob=` line.
#
# Prints one line per object: its own (self) instructions, the instructions of the libc and
# libm calls it makes (inclusive: formatting, memcpy, malloc), and its file name.  Names
# are compressed in the file: "(id) name" defines id, "(id)" refers to it, and a name may
# first appear in a cob= (callee object) line.  The line after a calls= line is the call's
# inclusive cost, not self cost.  The call from the program's start-up into libc's
# __libc_start_main (which includes everything) is not counted as a libc call.
function name_of(s, table,   id, rest) {
	if (match(s, /^\([0-9]+\)/)) {
		id = substr(s, 2, RLENGTH - 2)
		rest = substr(s, RLENGTH + 1)
		sub(/^ /, "", rest)
		if (rest != "")
			table[id] = rest
		return table[id]
	}
	return s
}
function base(path,   parts, n) { n = split(path, parts, "/"); return parts[n] }
function is_libc(path) { return base(path) ~ /^lib(c|m)\.so/ }

/^ob=/  { ob = name_of(substr($0, 4), objects); next }
/^cob=/ { cob = name_of(substr($0, 5), objects); next }
/^cfn=/ { cfn = name_of(substr($0, 5), functions); next }
/^fn=/  { name_of(substr($0, 4), functions); next }
/^calls=/ { call = 1; next }
/^[0-9+*-]/ {
	if (call) {
		if (cob != "" && is_libc(cob) && !is_libc(ob) && cfn !~ /__libc_start_main/)
			libc[ob] += $2
		call = 0
		cob = ""
		next
	}
	self[ob] += $2
	next
}
END {
	for (o in self)
		printf "%d %d %s\n", self[o], libc[o], base(o)
}
