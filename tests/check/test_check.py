#!/usr/bin/env python3
"""`skillsfs check`: output lines, summary, --json, --strict, exit codes
and usage errors.  $SKILLSFS is the program under test."""
import json
import os

from checklib import REFS_FM, SKILLS, Tap, TempTree, run

SKILLSFS = os.environ["SKILLSFS"]
t = Tap()


def check(*args, env=None, cwd=None):
    return run([SKILLSFS, "check", *args], env_extra=env, cwd=cwd)


GOOD_SUMMARY = "3 skills, 0 errors, 0 warnings, 0 shadowed\n"

# ---- good trees -------------------------------------------------------------

rc, out, err = check("--skills-dir", SKILLS)
t.eq((rc, out, err), (0, GOOD_SUMMARY, ""), "example skills: no findings, exit 0")

rc, out, err = check(env={"SKILLSFS_SKILLS_DIRS": SKILLS})
t.eq((rc, out), (0, GOOD_SUMMARY), "roots from SKILLSFS_SKILLS_DIRS")

rc, out, err = check("--skills-dir", "skills", cwd=os.path.dirname(SKILLS))
t.eq((rc, out), (0, GOOD_SUMMARY), "relative --skills-dir made absolute")

rc, out, err = check("--skills-dir", SKILLS, env={"SKILLSFS_SKILLS_DIRS": "/nonexistent"})
t.eq((rc, out), (0, GOOD_SUMMARY), "--skills-dir takes precedence over the environment")

rc, out, err = check("--skills-dir", SKILLS, "--strict")
t.eq((rc, out), (0, GOOD_SUMMARY), "--strict on clean skills: exit 0")

rc, out, err = check("--skills-dir", SKILLS, "--json")
t.eq((rc, out), (0, '{"findings":[],"summary":{"skills":3,"errors":0,"warnings":0,'
                    '"shadowed":0}}\n'), "--json on clean skills")

# ---- a tree with findings ---------------------------------------------------

with TempTree() as tree:
    r1, r2, r3 = tree.p("r1"), tree.p("r2"), tree.p("r3-missing")
    tree.skill("r1/good")
    tree.skill("r1/lower", md="skill.md")
    tree.skill("r1/refs", extra=REFS_FM)
    tree.skill("r1/dup")
    tree.skill("r2/dup")
    os.symlink("../../outside.txt", tree.p("r1/good/escape"))
    tree.write("outside.txt", "not part of any skill\n")
    tree.skill("r1/misnamed", name="other-name")
    args = ["--skills-dir", r1, "--skills-dir", r2, "--skills-dir", r3]

    rc, out, err = check(*args)
    lines = out.splitlines()
    want = [
        f"{r3}: error: skills folder does not exist",
        f"{tree.p('r1/good/escape')}: warning: symbolic link points outside the skill folder; hidden",
        f"{tree.p('r1/lower/skill.md')}: warning: spelled skill.md; rename it to SKILL.md",
        None,   # misnamed: the validator's own wording, checked below
        f"{tree.p('r1/refs/SKILL.md')}:11:13: error: x-personal-mcp.references.guide.path: "
        "reference references/guide.md does not exist in the skill",
        f"{tree.p('r2/dup/SKILL.md')}:2:7: warning: name: skill \"dup\" is shadowed by "
        f"{tree.p('r1/dup/SKILL.md')}, which is served",
        "6 skills, 2 errors, 4 warnings, 1 shadowed",
    ]
    t.eq(rc, 1, "errors: exit 1")
    t.eq(err, "", "findings go to stdout only")
    t.eq(len(lines), len(want), "one line per finding, then the summary")
    for i, (got, exp) in enumerate(zip(lines, want)):
        if exp is not None:
            t.eq(got, exp, f"line {i + 1}")
    t.ok(len(lines) > 3 and lines[3].startswith(f"{tree.p('r1/misnamed/SKILL.md')}:2:7: warning: name: "),
         "validator findings carry file, position and field", lines[3:4])

    rc, out, err = check(*args, "--json")
    t.eq(rc, 1, "--json with errors: exit 1")
    doc = json.loads(out)
    t.eq(list(doc), ["findings", "summary"], "--json document keys")
    t.eq(doc["summary"], {"skills": 6, "errors": 2, "warnings": 4, "shadowed": 1}, "--json summary")
    t.eq(len(doc["findings"]), 6, "--json: every finding")
    t.ok(all(list(f) == ["severity", "file", "line", "column", "field", "message"]
             for f in doc["findings"]), "--json finding keys in order")
    t.eq(doc["findings"][4], {"severity": "error", "file": tree.p("r1/refs/SKILL.md"), "line": 11,
                              "column": 13, "field": "x-personal-mcp.references.guide.path",
                              "message": "reference references/guide.md does not exist in the skill"},
         "--json finding with a position")
    t.ok(out.endswith("}\n") and out.count("\n") == 1, "--json prints one line")

    rc, out, err = check(*args, "--strict")
    lines = out.splitlines()
    t.eq(rc, 1, "--strict: exit 1")
    t.ok(all(": error: " in l for l in lines[:-1]), "--strict: every finding is an error", out)
    t.eq(lines[-1], "6 skills, 6 errors, 0 warnings, 1 shadowed", "--strict summary")

    # Warnings alone do not fail the check, unless --strict.
    rc, out, err = check("--skills-dir", tree.p("r1/lower"))
    t.eq((rc, out.splitlines()[-1]), (0, "1 skills, 0 errors, 1 warnings, 0 shadowed"),
         "a root that is itself a skill; warnings only: exit 0")
    rc, out, err = check("--skills-dir", tree.p("r1/lower"), "--strict")
    t.eq((rc, out.splitlines()[-1]), (1, "1 skills, 1 errors, 0 warnings, 0 shadowed"),
         "warnings only with --strict: exit 1")

    tree.write("not-a-folder", "x\n")
    rc, out, err = check("--skills-dir", tree.p("not-a-folder"))
    t.eq((rc, out), (1, f"{tree.p('not-a-folder')}: error: skills folder is not a folder\n"
                        "0 skills, 1 errors, 0 warnings, 0 shadowed\n"), "root that is a file")

# ---- the serving rule: departures are located warnings ----------------------

with TempTree() as tree:
    tree.skill("r/foo", name="vercel-foo")
    tree.write("r/ahrefs-automation/SKILL.md", "---\nname: Ahrefs Automation\ndescription: D.\n---\nB\n")
    tree.write("r/no-name/SKILL.md", "---\ndescription: D.\n---\nB\n")
    tree.skill("r/long", description="d" * 1030)
    tree.skill("r/meta", extra="metadata:\n  version: 1.0\n")
    tree.skill("r/compat", extra="compatibility: " + "c" * 501 + "\n")
    tree.write("r/Not An Id/SKILL.md", "---\ndescription: D.\n---\nB\n")
    p = tree.p
    rc, out, err = check(p("r"))
    lines = out.splitlines()
    left = "left out of skills/list (SEP-2640), which conforming MCP clients would refuse whole for it: "
    want = [
        f"{p('r/Not An Id/SKILL.md')}:1:1: error: name: required field is missing; "
        "the folder name is no valid skill id either",
        f"{p('r/ahrefs-automation/SKILL.md')}:2:1: warning: name: " + left +
        "name \"Ahrefs Automation\" is not 1-64 of a-z, 0-9 and single hyphens",
        f"{p('r/ahrefs-automation/SKILL.md')}:2:7: warning: name: \"Ahrefs Automation\" is not a valid "
        "skill id: it has uppercase letters (use 1-64 of a-z, 0-9 and '-', no leading, trailing or "
        "doubled '-'); the folder name is the skill id",
        f"{p('r/compat/SKILL.md')}:4:1: warning: compatibility: " + left +
        "compatibility is not a string of 1-500 characters",
        f"{p('r/compat/SKILL.md')}:4:16: warning: compatibility: is 501 characters; the limit is 500",
        f"{p('r/foo/SKILL.md')}:2:7: warning: name: \"vercel-foo\" does not match the folder name \"foo\"",
        f"{p('r/long/SKILL.md')}:3:1: warning: description: " + left +
        "description is 1030 characters, not 1-1024",
        f"{p('r/long/SKILL.md')}:3:14: warning: description: is 1030 characters; the limit is 1024",
        f"{p('r/meta/SKILL.md')}:4:1: warning: metadata: " + left +
        "metadata is not a mapping of strings to strings",
        f"{p('r/meta/SKILL.md')}:5:12: warning: metadata.version: should be a string, not a number (quote it)",
        f"{p('r/no-name/SKILL.md')}:1:1: warning: name: required field is missing; "
        "the folder name is the skill id",
        f"{p('r/no-name/SKILL.md')}:1:1: warning: name: " + left + "frontmatter has no string name",
        "7 skills, 1 errors, 11 warnings, 0 shadowed",
    ]
    t.eq((rc, err), (1, ""), "departures: warnings, and one skill with no id at all: exit 1")
    t.eq(lines, want, "each departure a located warning, each left-out skill says why")

    rc, out, err = check(p("r"), "--strict")
    t.eq((rc, out.splitlines()[-1]), (1, "7 skills, 12 errors, 0 warnings, 0 shadowed"),
         "--strict: every departure an error")
    rc, out, err = check(p("r"), "--strict", "--json")
    t.eq(json.loads(out)["summary"]["errors"], 12, "--strict --json")

# ---- what the official client's own YAML reader cannot read alike -----------

with TempTree() as tree:
    tree.skill("r/quoted", extra='license: "MIT\n  or later"\n')
    tree.skill("r/tagged", extra="license: !!str MIT\n")
    tree.skill("r/tabbed", extra="license: MIT\n \tor later\n")
    tree.skill("r/fine", extra="license: 'MIT'\nallowed-tools: [Read, Write]\n")
    p = tree.p
    cannot = "warning: the official SEP-2640 client cannot read "
    rc, out, err = check(p("r"))
    t.eq((rc, err, out.splitlines()), (0, "", [
        f"{p('r/quoted/SKILL.md')}:4:10: " + cannot + "a quoted value over several lines: "
        "quote the value on one line, or use a block scalar |; left out of skills/list",
        f"{p('r/tabbed/SKILL.md')}:5:2: " + cannot + "a tab in the indentation: indent with spaces; "
        "left out of skills/list",
        f"{p('r/tagged/SKILL.md')}:4:10: " + cannot + "a YAML tag (!!str, !...): remove the tag; "
        "quote the value to keep it text; left out of skills/list",
        "4 skills, 0 errors, 3 warnings, 0 shadowed",
    ]), "each construct the client cannot read is one located warning that says how to write it")
    rc, out, err = check(p("r"), "--strict")
    t.eq((rc, out.splitlines()[-1]), (1, "4 skills, 3 errors, 0 warnings, 0 shadowed"),
         "--strict: each is an error")

# ---- usage ------------------------------------------------------------------

rc, out, err = check("--help")
t.ok(rc == 0 and out.startswith("usage: skillsfs check [--skills-dir DIR]... [--source URL]... ")
     and err == "", "--help: usage on stdout, exit 0", out + err)
for opt in ("--skills-dir", "--source", "--strict", "--json", "--help"):
    t.ok(opt in out, f"--help documents {opt}")

rc, out, err = check("--bogus", "--skills-dir", SKILLS)
t.eq((rc, out, err), (2, "", "skillsfs check: unknown option '--bogus'\n"
                             "Try 'skillsfs check --help'.\n"), "unknown option: exit 2, named")

rc, out, err = check("-x")
t.eq((rc, err.splitlines()[0]), (2, "skillsfs check: unknown option '-x'"), "unknown short option")

rc, out, err = check("--skills-dir")
t.eq((rc, err.splitlines()[0]), (2, "skillsfs check: option '--skills-dir' needs a value"),
     "--skills-dir without a value")

# A folder named alone is a --skills-dir, in its place among the others.
with TempTree() as tree:
    tree.skill("a/same", description="From a.")
    tree.skill("b/same", description="From b.")
    tree.skill("b/only-b")
    rc, out, err = check(tree.p("a"), "--skills-dir", tree.p("b"), "--json")
    doc = json.loads(out) if rc == 0 else {}
    t.eq((rc, err, doc.get("summary")),
         (0, "", {"skills": 3, "errors": 0, "warnings": 1, "shadowed": 1}),
         "check DIR --skills-dir DIR: both roots read")
    t.ok(any(f["file"] == tree.p("b/same/SKILL.md") and "shadowed" in f["message"]
             for f in doc.get("findings", [])), "the positional folder comes first")
    rc, out, err = check("--skills-dir", tree.p("b"), tree.p("a"))
    t.ok(rc == 0 and f"{tree.p('a/same/SKILL.md')}:2:7: warning: name: skill \"same\" is shadowed"
         in out, "and after --skills-dir DIR, second", out)
    rc, out, err = check("--", tree.p("a"))
    t.eq((rc, out.splitlines()[-1]), (0, "1 skills, 0 errors, 0 warnings, 0 shadowed"),
         "a folder after --")
    rc, out, err = check(tree.p("missing"))
    t.eq((rc, out.splitlines()[0]), (1, f"{tree.p('missing')}: error: skills folder does not exist"),
         "a missing positional folder is a finding")

with TempTree() as tree:   # no standard skill folder in HOME or the cwd
    empty = tree.path
    rc, out, err = check(env={"HOME": empty}, cwd=empty)
    t.eq((rc, out, err.startswith("skillsfs check: no skills folders: give --skills-dir DIR, "
                                  "--config FILE or set SKILLSFS_SKILLS_DIRS")),
         (2, "", True), "no roots: exit 2")

    rc, out, err = check(env={"SKILLSFS_SKILLS_DIRS": "", "HOME": empty}, cwd=empty)
    t.eq(rc, 2, "empty SKILLSFS_SKILLS_DIRS is no roots")

t.done()
