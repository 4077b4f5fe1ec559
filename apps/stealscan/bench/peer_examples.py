#!/usr/bin/env python3
"""apps/stealscan/bench/peer_examples.py: how many of a peer's published example
secrets stealscan's built-in rules find (issue 39's measure).

Nosey Parker's and Kingfisher's YAML rules carry `examples:` (secrets their rule
finds) and `negative_examples:` (near misses it must not find). Each example is
written to a file of its own and `stealscan secrets -f json` runs once over them
all; one finding in a file counts. For each peer it prints:
  - own kind: example files found by a rule that is not `generic-*` (for the
    peer's own generic rules' examples, any of ours counts, generic ones too);
  - any rule: example files found by any rule;
  - negatives flagged: negative-example files with any finding; and, of them,
    those with a finding whose secret is in no positive example of any peer
    rule (a peer's negative for one rule is often a positive of another: a
    Slack user token is a near miss of its bot-token rule).
and, with --misses FILE, every example no rule finds (peer rule id, text).

The peers' rules are read, never copied: fetch the repositories and point this
at their rule folders (or at git mirrors: a folder ending in .git, or one
holding a bare `repo`, is read with `git archive`).

Usage: peer_examples.py STEALSCAN [--min-confidence LEVEL] [--misses FILE]
                        NAME=RULES_DIR [NAME=RULES_DIR ...]
  e.g. peer_examples.py build/release/apps/stealscan/stealscan \\
         noseyparker=/tmp/np/crates/noseyparker/data/default/builtin/rules \\
         kingfisher=/tmp/kf/data/rules
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import yaml


def load_rules(rules_dir):
    """[(rule id, name, [examples], [negative examples])] of every YAML file."""
    rules = []
    for root, _, files in os.walk(rules_dir):
        for f in sorted(files):
            if not f.endswith((".yml", ".yaml")):
                continue
            with open(os.path.join(root, f), encoding="utf-8") as fh:
                doc = yaml.safe_load(fh)
            for r in (doc or {}).get("rules", []) or []:
                rules.append((r.get("id", "?"), r.get("name", ""),
                              [e for e in r.get("examples", []) or [] if isinstance(e, str)],
                              [e for e in r.get("negative_examples", []) or [] if isinstance(e, str)]))
    return rules


def is_generic_peer_rule(rule_id, name):
    text = (rule_id + " " + name).lower()
    return "generic" in text


def write_cases(rules, out_dir):
    """Writes every example and negative example to a file; returns
    {path: (kind, rule id, text, peer rule is generic)}."""
    cases = {}
    for i, (rid, name, pos, neg) in enumerate(rules):
        for kind, texts in (("pos", pos), ("neg", neg)):
            for j, text in enumerate(texts):
                path = os.path.join(out_dir, kind, "r%04d_%03d.txt" % (i, j))
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w", encoding="utf-8") as fh:
                    fh.write(text if text.endswith("\n") else text + "\n")
                cases[os.path.realpath(path)] = (kind, rid, text, is_generic_peer_rule(rid, name))
    return cases


def scan(stealscan, case_dir, min_confidence):
    cmd = [stealscan, "secrets", "-f", "json", "--no-ignore", "--hidden", "--no-progress",
           "-o", "-"]
    if min_confidence:
        cmd += ["--min-confidence", min_confidence]
    cmd.append(case_dir)
    res = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if res.returncode not in (0, 1):  # 1: findings
        sys.exit("peer_examples.py: %s failed (%d): %s" % (" ".join(cmd), res.returncode, res.stderr[-400:]))
    found = {}
    for f in json.loads(res.stdout or "[]"):
        path = f["File"] if os.path.isabs(f["File"]) else os.path.join(case_dir, f["File"])
        found.setdefault(os.path.realpath(path), set()).add((f["RuleID"], f.get("Secret", "")))
    return found


RULE_FOLDERS = ("crates/noseyparker/data/default/builtin/rules", "data/rules")


def rules_dir_of(spec, tmp):
    """A rules folder, or a git mirror read with `git archive` into tmp."""
    git_dir = None
    if spec.endswith(".git") or os.path.isfile(os.path.join(spec, "HEAD")):
        git_dir = spec
    elif os.path.isfile(os.path.join(spec, "repo", "HEAD")):
        git_dir = os.path.join(spec, "repo")
    if not git_dir:
        return spec
    out = os.path.join(tmp, "checkout_%d" % len(os.listdir(tmp)))
    os.makedirs(out)
    # Only the rule folders: a mirror may lack its largest files.
    for sub in RULE_FOLDERS:
        archive = subprocess.run(["git", "--git-dir", git_dir, "archive", "HEAD", "--", sub], capture_output=True)
        if archive.returncode == 0:
            subprocess.run(["tar", "-x", "-C", out], input=archive.stdout, check=True)
            return out
    sys.exit("peer_examples.py: no rule folder (%s) in the repository '%s'" % (", ".join(RULE_FOLDERS), git_dir))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("stealscan")
    ap.add_argument("--min-confidence", default="")
    ap.add_argument("--misses", default="")
    ap.add_argument("peers", nargs="+", metavar="NAME=RULES_DIR")
    a = ap.parse_args()
    misses = []
    with tempfile.TemporaryDirectory() as tmp:
        print("| peer | examples | own kind | any rule | negatives | negatives flagged | of them, a secret in no positive |")
        print("|---|---|---|---|---|---|---|")
        all_positives, neg_cases, rows = [], [], []
        for spec in a.peers:
            name, _, where = spec.partition("=")
            if not where or not os.path.isdir(where):
                sys.exit("peer_examples.py: '%s' is not NAME=RULES_DIR with an existing folder" % spec)
            rules_dir = rules_dir_of(where, tmp)
            # A peer's checkout: its rule folder, wherever it is inside.
            for sub in RULE_FOLDERS:
                if os.path.isdir(os.path.join(rules_dir, sub)):
                    rules_dir = os.path.join(rules_dir, sub)
            rules = load_rules(rules_dir)
            if not rules:
                sys.exit("peer_examples.py: no rules under '%s'" % rules_dir)
            case_dir = os.path.join(tmp, name)
            cases = write_cases(rules, case_dir)
            found = scan(a.stealscan, case_dir, a.min_confidence)
            pos = [p for p, c in cases.items() if c[0] == "pos"]
            neg = [p for p, c in cases.items() if c[0] == "neg"]
            ids = {p: {r for r, _ in v} for p, v in found.items()}
            positives = [c[2] for c in cases.values() if c[0] == "pos"]
            all_positives.extend(positives)
            own = sum(1 for p in pos if any(not r.startswith("generic") or cases[p][3] for r in ids.get(p, ())))
            anyr = sum(1 for p in pos if found.get(p))
            negf = sum(1 for p in neg if found.get(p))
            neg_cases.append((name, neg, found))
            pct = lambda n, d: "%d%% (%d)" % (round(100.0 * n / d), n) if d else "-"
            rows.append([name, len(pos), pct(own, len(pos)), pct(anyr, len(pos)), len(neg), pct(negf, len(neg))])
            for p in sorted(pos):
                if not found.get(p):
                    misses.append("%s\tmiss\t%s\t%s" % (name, cases[p][1], cases[p][2].replace("\n", "\\n")[:300]))
                elif not any(not r.startswith("generic") or cases[p][3] for r in ids[p]):
                    misses.append("%s\tgeneric-only\t%s\t%s" % (name, cases[p][1], cases[p][2].replace("\n", "\\n")[:300]))
            for p in sorted(neg):
                if found.get(p):
                    misses.append("%s\tneg-flagged(%s)\t%s\t%s" % (name, ",".join(sorted(ids[p])), cases[p][1],
                                                                  cases[p][2].replace("\n", "\\n")[:300]))
        # A negative whose every reported secret is some peer's positive
        # example found a secret of another kind, not a near miss.
        for row, (name, neg, found) in zip(rows, neg_cases):
            wrong = sum(1 for p in neg if any(not any(sec and sec in t for t in all_positives) for _, sec in found.get(p, ())))
            print("| %s | %d | %s | %s | %d | %s | %s |" % tuple(row + [pct(wrong, len(neg))]))
    if a.misses:
        with open(a.misses, "w", encoding="utf-8") as fh:
            fh.write("\n".join(misses) + "\n")


if __name__ == "__main__":
    main()
