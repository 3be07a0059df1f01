"""What a report takes after the script, from what is still alive (observer.py says why then).

Run once the script is over: nothing the script does follows, so asking z3 here changes no output.
"""

from __future__ import annotations

import z3

from . import models, observer
from .check_record import Record
from .copies import address
from .observer import SAT, UNSAT


def send_held_models() -> None:
    """The models the script asked for at its checks and still holds, read and sent (checks.py)."""
    seen = observer.OBSERVER
    for earlier in seen.models.values():
        if earlier.model and earlier.fields is None:  # one sent when the script asked is not sent again
            earlier.fields = observer.read_model(earlier.ctx, earlier.model)
            seen.checks.model(earlier.index, earlier.fields)
    seen.models.clear()
    record = seen.last
    if record is not None and record.fields is None and record.model:
        record.fields = observer.read_model(record.ctx, record.model)
        seen.checks.model(record.index, record.fields)


def finish() -> Record | None:
    """After the script: the last record with what its report needs, read from what is still alive
    (the model asked for now if the script never asked and never changed the solver since)."""
    send_held_models()
    seen = observer.OBSERVER
    record = seen.last
    if record is None or record.result not in (SAT, UNSAT):
        return record
    mirror = seen.mirrors.get(record.solver)
    if record.result == SAT and record.fields is None and mirror is not None and not record.changed:
        try:
            model = observer.C[f"Z3_{record.kind}_get_model"](record.ctx, record.solver)
            z3.Z3_model_inc_ref(record.ctx, model)
            record.fields = observer.read_model(record.ctx, model)
            z3.Z3_model_dec_ref(record.ctx, model)
            seen.checks.model(record.index, record.fields)
        except Exception:  # no model left: the report has none
            pass
    if record.assertions is None and mirror is not None:
        if record.mark is not None:
            record.assertions = mirror.text(record.mark, record.assumptions)
        elif not record.changed and not record.assumed:  # from text: only z3 knows them, and may tell now
            record.assertions = _z3_assertions(record)
    return record


def _z3_assertions(record: Record) -> str | None:
    try:
        vector = z3.AstVector(observer.C[f"Z3_{record.kind}_get_assertions"](record.ctx, record.solver),
                              observer.OBSERVER.context(record.ctx))
        return models.benchmark(record.ctx, [address(f.as_ast()) for f in vector])
    except Exception:
        return None
