"""Sessions saved before the move to core/domain/ name their types by the old module paths; they still load."""

from __future__ import annotations

import pytest

from core.domain.plan import PlanItem
from core.domain.records import Deficiency, DeficiencyType, Severity
from core.persistence.checkpoints import LEGACY_MODULES, serializer


@pytest.mark.parametrize("cls", [Deficiency, PlanItem])
def test_a_type_saved_under_its_old_module_path_is_revived_as_the_new_type(cls, monkeypatch) -> None:
    old = next(k for k, v in LEGACY_MODULES.items() if v == cls.__module__)
    if cls is Deficiency:
        value = Deficiency(
            deficiency_type=DeficiencyType.missing_jurisdiction,
            description="no source on X",
            affected_section="X",
            severity=Severity.high,
            subject="X",
        )
    else:
        value = PlanItem(id="P-1", jurisdiction="EU", aspect="scope", ask="who is covered", query="scope EU")
    serde = serializer()
    with monkeypatch.context() as m:
        m.setattr(cls, "__module__", old)
        saved = serde.dumps_typed({"v": value})
    revived = serde.loads_typed(saved)["v"]
    assert type(revived) is cls
    assert revived == value
