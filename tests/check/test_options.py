#!/usr/bin/env python3
"""The daemon's option table (shared/mount_opts.h) against what is said of
it: every row is in `skillsfs --help` (in table order) and in the -o list
of man/skillsfs.1, every -o the man pages name is a row, the rows a
config file may give are the keys its options: takes and skillsfs(5)
lists, and every row is parsed as its kind says (a flag takes no value, a
value needs one, a bad number is an error naming the option).  Nothing is
mounted: each command line stops at a usage error, and names a mount
point that does not exist.  $SKILLSFS is the
program under test."""
import os
import re

from checklib import SKILLS, SOURCE_ROOT, Tap, TempTree, run

SKILLSFS = os.environ["SKILLSFS"]
t = Tap()

FLAGS = {"FLAG", "NOFLAG", "FUSE_FLAG"}
NUMBERS = {"MS": "milliseconds", "US": "microseconds", "SECONDS": "seconds",
           "MIB": "mebibytes", "COUNT": "a count",
           "SIZE": "a size in bytes, or with K, M, G or T"}
# a word of the row's choices (mount_opts.c), as a file and -o give it
CHOICES = {"trust": ("report", "one of report, withhold, hold")}
# libfuse's own -o options the man page names as passing through
FUSE_OWN = {"allow_root", "default_permissions", "auto_unmount"}


def read(rel):
    with open(os.path.join(SOURCE_ROOT, rel), encoding="utf-8") as f:
        return f.read()


def table():
    """The rows of SFS_MOUNT_OPTS: (name, kind, min, max, in_file)."""
    text = read("shared/mount_opts.h").replace("\\\n", "\n")
    body = text[text.index("#define SFS_MOUNT_OPTS(X)"):text.index("enum sfs_opt {")]
    row = re.compile(r'X\(\s*(\w+),\s*"(\w+)",\s*(\w+),\s*(\w+),\s*([^,]+),'
                     r'\s*([^,]+),\s*([^,]+),\s*(true|false),')
    return [(m[2], m[3], number(m[6]), number(m[7]), m[8] == "true")
            for m in row.finditer(body)]


def number(c):
    """A C constant of the table: 86400 or 86400 * 366."""
    product = 1
    for factor in c.split("*"):
        product *= int(factor.strip().rstrip("L"))
    return product


def help_rows(out):
    """The -o NAMEs of the 'skillsfs -o options:' part of --help."""
    part = out[out.index("skillsfs -o options:\n"):]
    part = part[:part.index("\n\n")]
    return re.findall(r"^    -o (\w+)", part, re.M)


def roff_names(line):
    """The option names a roff tag line gives: .B strict,
    .BI debounce= MS, .BR clone_fd ", " max_threads=\\fIN\\fR."""
    line = re.sub(r"\\f[IRBP]", "", re.sub(r"^\.\w+\s*", "", line))
    return re.findall(r"(?:^|[\s\",])([a-z_]+)(?==|\"|\s|,|$)", line)


def man_o_list(man):
    """The tags of the -o list in skillsfs(1): from '.BI \\-o' to '.RE'."""
    start = man.index('.BI \\-o " OPT[,OPT...]"')
    part = man[start:man.index("\n.RE\n", start)].splitlines()
    names = []
    for i, line in enumerate(part):
        if line == ".TP" and i + 1 < len(part):
            names += roff_names(part[i + 1])
    return names


rows = table()
names = [r[0] for r in rows]
t.ok(len(rows) >= 20 and len(set(names)) == len(names),
     "the table has its rows, each name once", names)

# ---- --help ------------------------------------------------------------------

rc, out, err = run([SKILLSFS, "--help"])
t.eq(help_rows(out), names, "--help lists every row, in table order")
part = out[out.index("skillsfs -o options:\n"):]
width = max(len(line) for line in part[:part.index("\n\n")].splitlines())
t.ok(width <= 79, "the rows' help is wrapped within 79 columns", f"widest {width}")

# ---- the man pages -----------------------------------------------------------

man1 = read("man/skillsfs.1")
listed = man_o_list(man1)
t.eq(sorted(set(listed)), sorted(names), "skillsfs(1)'s -o list is the table")
named = set(re.findall(r"\\-o[\\ ]+([a-z_]+)(?![\w.])", man1))
t.eq(sorted(named - set(names) - FUSE_OWN), [],
     "every -o NAME skillsfs(1) mentions is a row")

man5 = read("man/skillsfs.5")
start = man5.index(".TP\n.B options\n")
para = man5[start + 4:man5.index("\n.PP\n", start)]
in_para = {n for line in para.splitlines() if line.startswith(".B")
           for n in roff_names(line)} & set(names)
t.eq(sorted(in_para), sorted(r[0] for r in rows if r[4]),
     "skillsfs(5)'s options: lists exactly the rows a file may give")
example = man5[man5.index("\noptions:\n"):]
example = example[:example.index("\n.EE")]
t.eq(sorted(set(re.findall(r"^  (\w+):", example, re.M)) - {n for n in names}),
     [], "skillsfs(5)'s example options: are rows")

# ---- the config file's options: ---------------------------------------------

with TempTree() as tmp:
    for name, kind, lo, hi, in_file in rows:
        value = ("true" if kind in FLAGS else str(lo) if kind in NUMBERS
                 else CHOICES[name][0] if kind == "CHOICE" else tmp.path)
        conf = tmp.write(f"{name}.yaml", f"options:\n  {name}: {value}\n")
        rc, out, err = run([SKILLSFS, "check", "--config", conf,
                            "--skills-dir", SKILLS])
        if in_file:
            t.eq((rc, err), (0, ""), f"options: takes {name}")
        else:
            t.ok(rc == 2 and f"options.{name}: unknown option" in err,
                 f"options: refuses {name}, a command-line option", err)
    conf = tmp.write("bad.yaml", "options:\n  debounce: 3600001\n")
    rc, out, err = run([SKILLSFS, "check", "--config", conf, "--skills-dir", SKILLS])
    t.ok(rc == 2 and "options.debounce: expected milliseconds (0-3600000)" in err,
         "a file's number out of the row's range: its range named", err)

# ---- -o, by kind -------------------------------------------------------------

with TempTree() as tmp:
    # a mount point that does not exist: were a line parsed, the mount
    # would fail there (exit 1) rather than mount anything
    mnt = tmp.p("missing")
    for name, kind, lo, hi, in_file in rows:
        base = [SKILLSFS, mnt, "--skills-dir", SKILLS, "-o"]
        if kind in FLAGS:
            rc, out, err = run(base + [f"{name}=1"])
            t.ok(rc == 2 and f"-o {name} takes no value" in err,
                 f"-o {name}=1: a flag takes no value", err)
            continue
        rc, out, err = run(base + [name])
        t.ok(rc == 2 and f"-o {name} needs a value" in err,
             f"-o {name}: a value is needed", err)
        if kind in NUMBERS:
            rc, out, err = run(base + [f"{name}={hi + 1}"])
            shown = "512M" if kind == "SIZE" else f"{lo}-{hi}"
            want = f"-o {name}={hi + 1}: expected {NUMBERS[kind]} ({shown})"
            t.ok(rc == 2 and want in err, f"-o {name} past its range", err)
        if kind == "CHOICE":
            rc, out, err = run(base + [f"{name}=sometimes"])
            want = f"-o {name}=sometimes: expected {CHOICES[name][1]}"
            t.ok(rc == 2 and want in err, f"-o {name}: a word not its own", err)

t.done()
