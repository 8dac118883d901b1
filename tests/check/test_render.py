#!/usr/bin/env python3
"""Golden tests of the library's JSON renderings (index.json,
catalog/skills_index.json, catalog/<id>.json, status.json, check --json),
compared as whole documents, byte for byte.  Every SHA-256 and size is
computed here, independently, from the files.

usage: test_render.py RENDER_TOOL"""
import os
import sys

from checklib import REFS_FM, SKILLS, Tap, TempTree, cjson, lines_document, resources, run

RENDER = sys.argv[1]
t = Tap()


def render(roots, what, strict=False):
    args = [RENDER] + (["--strict"] if strict else [])
    for r in roots:
        args += ["--skills-dir", r]
    rc, out, err = run(args + [what])
    t.ok(rc == 0, f"render_tool {what} exits 0", err)
    return out


# ---- the shipped example skills -------------------------------------------

PDF_DESC = ("Fill in PDF forms from structured data and check the result. Use when a task "
            "mentions a PDF form, fillable fields, or turning JSON or CSV records into filled PDFs.")
CSV_DESC = ("Summarise a CSV file: row count, columns, and per-column minimum, maximum and "
            "mean for numeric columns. Use when asked what is in a CSV or for a quick report "
            "on tabular data.\n")
COMMIT_DESC = ("Write git commit messages in this team's style: an imperative summary under "
               "60 characters, a blank line, then why the change was made. Use when committing "
               "or when asked to reword a commit.")

FRONTMATTER = {
    "commit-messages": {
        "name": "commit-messages",
        "description": COMMIT_DESC,
        "when_to_use": "Before every `git commit`, and when reviewing someone else's history.",
    },
    "csv-report": {
        "name": "csv-report",
        "description": CSV_DESC,
        "user-invocable": True,
    },
    "pdf-forms": {
        "name": "pdf-forms",
        "description": PDF_DESC,
        "license": "MIT",
        "compatibility": "Needs python3; pdftk is optional.",
        "allowed-tools": "Bash(python3:*) Read",
        "metadata": {"author": "skillsfs-examples", "category": "documents"},
        "x-personal-mcp": {
            "id": "pdf-forms",
            "version": "1.2.0",
            "tags": ["pdf", "forms"],
            "capabilities": ["resource://skills/pdf-forms/document",
                             "resource://skills/pdf-forms/references/field-types"],
            "depends_on": [],
            "references": {
                "field-types": {"path": "references/field-types.md",
                                "title": "Field types: text, checkbox, choice"},
                "troubleshooting": {"path": "references/troubleshooting.md"},
            },
        },
    },
}
DIRS = {
    "commit-messages": os.path.join(SKILLS, "writing", "commit-messages"),
    "csv-report": os.path.join(SKILLS, "csv-report"),
    "pdf-forms": os.path.join(SKILLS, "pdf-forms"),
}
IDS = sorted(DIRS)

index = render([SKILLS], "index")
t.eq(index, lines_document([{"uri": f"skill://{i}/SKILL.md", "frontmatter": FRONTMATTER[i],
                             "resources": resources(i, DIRS[i])} for i in IDS]),
     "index.json of the example skills")
t.ok(index.startswith('{"skills":[\n') and index.endswith("\n]}\n")
     and len(index.splitlines()) == 2 + len(IDS), "index.json: one skill per line")


def caps(i):
    fm = FRONTMATTER[i].get("x-personal-mcp")
    return fm["capabilities"] if fm else [f"resource://skills/{i}/document"]


def index_entry(i):
    fm = FRONTMATTER[i].get("x-personal-mcp", {})
    return {"id": i, "name": i, "description": FRONTMATTER[i]["description"],
            "tags": fm.get("tags", []), "capabilities": caps(i), "version": fm.get("version")}


t.eq(render([SKILLS], "skills-index"), lines_document([index_entry(i) for i in IDS]),
     "catalog/skills_index.json of the example skills")


def record(i, root, source):
    fm = FRONTMATTER[i].get("x-personal-mcp", {})
    refs = {}
    for ref_id in sorted(fm.get("references", {})):
        r = fm["references"][ref_id]
        refs[ref_id] = {"path": r["path"], "uri": f"resource://skills/{i}/references/{ref_id}",
                        "title": r.get("title"), "mime_type": r.get("mime_type", "text/markdown")}
    return cjson({
        "id": i, "name": i, "description": FRONTMATTER[i]["description"],
        "version": fm.get("version"), "tags": fm.get("tags", []), "capabilities": caps(i),
        "depends_on": fm.get("depends_on", []),
        "document": {"uri": f"resource://skills/{i}/document", "path": "SKILL.md",
                     "skill_uri": f"skill://{i}/SKILL.md"},
        "references": refs,
        "root": root, "source": source,
        "digest": resources(i, source)[0]["digest"],
        "frontmatter": FRONTMATTER[i],
        "findings": [],
    }, pretty=True) + "\n"


for i in IDS:
    t.eq(render([SKILLS], f"record={i}"), record(i, SKILLS, DIRS[i]), f"catalog/{i}.json")

# ---- a tree with every kind of finding ------------------------------------

with TempTree() as tree:
    r1, r2, r3 = tree.p("r1"), tree.p("r2"), tree.p("r3-missing")
    tree.skill("r1/good")
    tree.write("r1/good/scripts/run.sh", "#!/bin/sh\necho ok\n")
    tree.write("r1/good/a-b.txt", "sorted before a/ by strcmp\n")
    tree.write("r1/good/a/x.txt", "x\n")
    tree.write("r1/good/ünïcode.md", "non-ASCII path\n")
    os.symlink("scripts/run.sh", tree.p("r1/good/run-link"))
    tree.skill("r1/lower", md="skill.md")
    tree.skill("r1/refs", extra=REFS_FM)
    tree.skill("r1/team/dup")
    tree.skill("r2/dup")
    roots = [r1, r2, r3]

    def fm(name):
        return {"name": name, "description": f"The {name} skill, for tests."}

    served = {"dup": tree.p("r1/team/dup"), "good": tree.p("r1/good"), "lower": tree.p("r1/lower")}
    want = []
    for i in sorted(served):
        # os.walk lists the in-skill link like a file; its digest and
        # size are its target's, as the library serves them.
        res = resources(i, served[i])
        want.append({"uri": f"skill://{i}/SKILL.md", "frontmatter": fm(i), "resources": res})
    t.eq(render(roots, "index"), lines_document(want), "index.json with links, skill.md, "
         "strcmp order, non-ASCII names")

    def diag(sev, file, line, col, field, msg):
        return {"severity": sev, "file": file, "line": line, "column": col, "field": field,
                "message": msg}

    missing = diag("error", r3, 0, 0, "", "skills folder does not exist")
    lower = diag("warning", tree.p("r1/lower/skill.md"), 0, 0, "",
                 "spelled skill.md; rename it to SKILL.md")
    refs = diag("error", tree.p("r1/refs/SKILL.md"), 11, 13, "x-personal-mcp.references.guide.path",
                "reference references/guide.md does not exist in the skill")
    shadow = diag("warning", tree.p("r2/dup/SKILL.md"), 2, 7, "name",
                  f"skill \"dup\" is shadowed by {tree.p('r1/team/dup/SKILL.md')}, which is served")
    status = {
        "generation": 7,
        "last_refresh": "2026-01-02T03:04:05.678Z",
        "refresh_mode": "polling",
        "roots": [{"path": r1, "source": "--skills-dir", "exists": True, "skills": 3},
                  {"path": r2, "source": "--skills-dir", "exists": True, "skills": 0},
                  {"path": r3, "source": "--skills-dir", "exists": False, "skills": 0}],
        "counts": {"served": 3, "invalid": 1, "shadowed": 1, "errors": 2, "warnings": 2},
        "skills": [
            {"dir": tree.p("r1/lower"), "id": "lower", "state": "served", "diagnostics": [lower]},
            {"dir": tree.p("r1/refs"), "id": "refs", "state": "invalid", "diagnostics": [refs]},
            {"dir": tree.p("r2/dup"), "id": "dup", "state": "shadowed",
             "shadowed_by": tree.p("r1/team/dup"), "diagnostics": [shadow]},
        ],
        "unlisted": [
        ],
        "diagnostics": [missing],
    }
    t.eq(render(roots, "status"), cjson(status, pretty=True) + "\n", "status.json")

    findings = {"findings": [missing, lower, refs, shadow],
                "summary": {"skills": 5, "errors": 2, "warnings": 2, "shadowed": 1}}
    t.eq(render(roots, "findings"), cjson(findings) + "\n", "check --json findings document")

    strict = dict(findings)
    strict["findings"] = [dict(d, severity="error") for d in findings["findings"]]
    strict["summary"] = {"skills": 5, "errors": 4, "warnings": 0, "shadowed": 1}
    t.eq(render(roots, "findings", strict=True), cjson(strict) + "\n",
         "--strict: every warning is an error")

    dirs = render(roots, "dirs").splitlines()
    t.eq(dirs, sorted([r1, tree.p("r1/good"), tree.p("r1/good/a"), tree.p("r1/good/scripts"),
                       tree.p("r1/lower"), tree.p("r1/refs"), tree.p("r1/team"),
                       tree.p("r1/team/dup"), r2, tree.p("r2/dup")], key=str.encode),
         "every folder read is watched")

    t.eq(render(roots, "index"), render(roots, "index"), "rendering is deterministic")

with TempTree() as tree:
    t.eq(render([tree.path], "index"), '{"skills":[\n]}\n', "empty index.json")
    t.eq(render([tree.path], "skills-index"), '{"skills":[\n]}\n', "empty skills_index.json")

t.done()
