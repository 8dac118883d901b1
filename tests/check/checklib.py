"""Helpers shared by the tests in tests/check: TAP output, running the
programs, temporary skill trees, and an independent rendering of JSON in
cJSON's two print styles, so that whole documents can be compared."""
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.parse

SOURCE_ROOT = os.environ.get(
    "SKILLSFS_SOURCE_ROOT",
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
SKILLS = os.path.join(SOURCE_ROOT, "tests", "skills")


class Tap:
    """Minimal TAP producer: ok(), eq(), done()."""

    def __init__(self):
        self.n = 0
        self.failed = 0

    def ok(self, cond, name, detail=None):
        self.n += 1
        print(f"{'' if cond else 'not '}ok {self.n} - {name}")
        if not cond:
            self.failed += 1
            if detail:
                for line in str(detail).splitlines():
                    print(f"# {line}")
        sys.stdout.flush()
        return cond

    def eq(self, got, want, name):
        detail = None
        if got != want:
            detail = f"got:\n{got!r}\nwant:\n{want!r}"
            if isinstance(got, str) and isinstance(want, str):
                detail += "\n" + first_difference(got, want)
        return self.ok(got == want, name, detail)

    def done(self):
        print(f"1..{self.n}")
        sys.exit(1 if self.failed else 0)


def first_difference(a, b):
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return f"first difference at {i}: {a[max(0, i - 40):i + 40]!r} vs {b[max(0, i - 40):i + 40]!r}"
    return f"lengths {len(a)} and {len(b)}"


def run(args, env_extra=None, cwd=None, unset_roots=True):
    env = dict(os.environ)
    if unset_roots:
        env.pop("SKILLSFS_SKILLS_DIRS", None)
    env.update(env_extra or {})
    p = subprocess.run(args, capture_output=True, text=True, env=env, cwd=cwd, timeout=120)
    return p.returncode, p.stdout, p.stderr


# ---- cJSON's layouts, through Python's json ------------------------------

def cjson(v, pretty=False, depth=0):
    """v as cJSON_Print (pretty) or cJSON_PrintUnformatted prints it: the
    escapes are json's own with ensure_ascii off; cJSON_Print indents
    objects with tabs, "key":<tab>value, and keeps arrays on one line."""
    if not pretty:
        return json.dumps(v, ensure_ascii=False, separators=(",", ":"))
    if isinstance(v, list):
        return "[" + ", ".join(cjson(x, True, depth + 1) for x in v) + "]"
    if not isinstance(v, dict):
        return json.dumps(v, ensure_ascii=False)
    depth += 1
    members = ["\t" * depth + json.dumps(k, ensure_ascii=False) + ":\t" +
               cjson(x, True, depth) for k, x in v.items()]
    return "{\n" + "".join(m + ",\n" for m in members[:-1]) + \
        (members[-1] + "\n" if members else "") + "\t" * (depth - 1) + "}"


def lines_document(entries):
    """The one-skill-per-line layout of index.json and skills_index.json."""
    body = "".join(cjson(e) + (",\n" if i + 1 < len(entries) else "\n")
                   for i, e in enumerate(entries))
    return '{"skills":[\n' + body + "]}\n"


# ---- skill trees ----------------------------------------------------------

def sha256(path):
    with open(path, "rb") as f:
        return "sha256:" + hashlib.sha256(f.read()).hexdigest()


def skill_files(skill_dir):
    """Every file a skill serves, as (relative path, absolute path), sorted
    the way the library sorts (bytewise), SKILL.md excluded."""
    out = []
    for dirpath, dirnames, filenames in os.walk(skill_dir):
        dirnames[:] = [d for d in dirnames if not d.startswith(".") and d != "node_modules"]
        for name in filenames:
            full = os.path.join(dirpath, name)
            rel = os.path.relpath(full, skill_dir)
            if rel not in ("SKILL.md", "skill.md"):
                out.append((rel, full))
    out.sort(key=lambda p: p[0].encode())
    return out


def uri_path(rel):
    """A path as skill:// URIs spell it: the canonical form of the
    official SDK's skills client (ENCODED_IN_SEGMENT), UTF-8 bytes
    percent-encoded in uppercase hex."""
    return urllib.parse.quote(rel, safe="!$&'()*+,.:;=@[]|~-_/")


def resources(skill_id, skill_dir):
    skill_md = os.path.join(skill_dir, "SKILL.md")
    if not os.path.exists(skill_md):
        skill_md = os.path.join(skill_dir, "skill.md")
    res = [{"uri": f"skill://{skill_id}/SKILL.md", "digest": sha256(skill_md),
            "size": os.path.getsize(skill_md)}]
    for rel, full in skill_files(skill_dir):
        res.append({"uri": f"skill://{skill_id}/{uri_path(rel)}", "digest": sha256(full),
                    "size": os.path.getsize(full)})
    return res


# The frontmatter of a skill "refs" with a reference "guide"
# (references/guide.md), for the trees with findings.
REFS_FM = ("x-personal-mcp:\n  id: refs\n  version: 1.0.0\n  capabilities:\n"
           "    - resource://skills/refs/document\n  references:\n    guide:\n"
           "      path: references/guide.md\n")


class TempTree:
    """A temporary folder that is removed at exit, with helpers to write
    skills into it."""

    def __init__(self):
        self.path = tempfile.mkdtemp(prefix="skillsfs-check.")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        shutil.rmtree(self.path, ignore_errors=True)

    def p(self, rel):
        return os.path.join(self.path, rel)

    def write(self, rel, text):
        full = self.p(rel)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8") as f:
            f.write(text)
        return full

    def skill(self, rel, description=None, extra="", md="SKILL.md", name=None):
        name = name or os.path.basename(rel)
        description = description or f"The {name} skill, for tests."
        return self.write(os.path.join(rel, md),
                          f"---\nname: {name}\ndescription: {description}\n{extra}---\n# {name}\n\nBody.\n")
