"""Migrate one Python source text: parse it, collect its facts, apply the rules, fix the
imports, and return the new text with the file's report. Parse errors are reported, and the
source is returned unchanged."""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst
from libcst.codemod import CodemodContext
from libcst.codemod.visitors import AddImportsVisitor
from libcst.metadata import MetadataWrapper

from summarylib.migrate import surface, tf1_loops
from summarylib.migrate.facts import Siblings, collect_facts
from summarylib.migrate.imports import RemoveUnusedImports, remove_unused_submodules
from summarylib.migrate.report import FileReport
from summarylib.migrate.rules import Rules
from summarylib.migrate.transform import Migrator

TARGETS = ("compat", "v2")


@dataclass
class MigrationResult:
    """The migrated source (the input itself when nothing changed or it did not parse)."""

    source: str
    report: FileReport

    @property
    def changed(self) -> bool:
        """Whether the migration changed anything."""
        return bool(self.report.changes)


def migrate_source(
    source: str, path: str = "<string>", to: str = "compat", siblings: Siblings | None = None
) -> MigrationResult:
    """Migrate the summary-writing code of `source` onto summarylib (`to`: "compat", the
    closest runnable equivalent, or "v2", summarylib's v2 API where that is mechanical).
    `siblings` gives the facts of the modules beside it (facts.sibling_facts), for a file
    whose summary ops alone do not say whether they are TF 1.x's or TF 2's."""
    if to not in TARGETS:
        raise ValueError(f"migrate_source: to must be one of {TARGETS}, got {to!r}")
    report = FileReport(path)
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError as error:
        report.error = " ".join(str(error).split())
        return MigrationResult(source, report)
    wrapper = MetadataWrapper(module)
    context = CodemodContext(wrapper=wrapper, filename=path, full_module_name=None)
    facts = collect_facts(wrapper, siblings)
    loops = tf1_loops.plan(wrapper, facts) if to == "v2" and facts.tf1 and not facts.graph else None
    rules = Rules(facts, to, loops)
    migrated = wrapper.visit(Migrator(context, rules, report))
    report.styles = sorted(rules.styles)
    if not report.changes:
        # Code already on a drop-in writer (an earlier run's output) still lists the calls
        # the drop-in cannot take, so that every run reports what is left for a person.
        surface.check(module, report)
        return MigrationResult(source, report)
    migrated = AddImportsVisitor(context).transform_module(migrated)
    migrated = RemoveUnusedImports(context).transform_module(migrated)
    migrated = remove_unused_submodules(migrated)
    surface.check(migrated, report)
    return MigrationResult(migrated.code, report)
