"""The hparams API (hparams, hparams_config, HParam, Discrete, IntInterval, RealInterval,
Metric, session_end), set_step and record_if driven with hostile values, each call held
to the contract of tests/hostile_contract.py (issue 19, item 15)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import summarylib as sl
from summarylib import hparams as hp
from tests.hostile_contract import check_contract
from tests.hostile_values import examples, steps, strings

FEW, SOME = examples(25), examples(50)


hparam_values = st.one_of(
    st.booleans(),
    st.integers(-(2**1100), 2**1100),
    st.floats(),
    strings,
    st.sampled_from([np.float32(1.5), np.longdouble(2), np.array([1, 2]), [1]]),
)


@settings(max_examples=SOME)
@given(
    values=st.dictionaries(st.one_of(strings, st.integers()), hparam_values, max_size=3),
    trial_id=strings,
    start=st.one_of(st.none(), st.floats(), st.integers(-(2**1100), 2**1100), strings),
)
def test_hparams(values, trial_id, start):
    check_contract(
        lambda: hp.hparams(values, trial_id=trial_id, start_time_secs=start),
        ("hparams",),
        "_hparams_/session_start_info",
    )


@settings(max_examples=SOME)
@given(
    name=strings,
    domain=st.deferred(lambda: domains_or_errors),
    display_name=strings,
    metric=st.tuples(
        strings,
        strings,
        strings,
        st.one_of(st.none(), st.integers(-1, 3), st.sampled_from([1.0, "x", np.array([1, 2])])),
    ),
    time_created=st.one_of(st.none(), st.floats(), strings),
)
def test_hparams_config(name, domain, display_name, metric, time_created):
    apis = (
        "hparams_config",
        "hparams.HParam",
        "hparams.Metric",
        "hparams.Discrete",
        "hparams.IntInterval",
        "hparams.RealInterval",
    )

    def call():
        if isinstance(domain, Exception):
            raise domain
        tag, group, description, dataset_type = metric
        hparam = hp.HParam(name, domain, display_name=display_name)
        measure = hp.Metric(tag, group=group, description=description, dataset_type=dataset_type)
        return hp.hparams_config([hparam], [measure], time_created_secs=time_created)

    check_contract(call, apis, "_hparams_/experiment")


def _domain_or_error(make: Callable[[], Any]) -> Any:
    """A domain, or the error its construction raised (checked by the test's contract)."""
    try:
        return make()
    except (TypeError, ValueError) as error:
        return error


domains_or_errors = st.one_of(
    st.none(),
    st.sampled_from([[1, 2], "domain"]),
    st.builds(
        lambda v: _domain_or_error(lambda: hp.Discrete(v)),
        st.one_of(st.lists(hparam_values, max_size=3), hparam_values),
    ),
    st.builds(lambda a, b: _domain_or_error(lambda: hp.IntInterval(a, b)), hparam_values, hparam_values),
    st.builds(lambda a, b: _domain_or_error(lambda: hp.RealInterval(a, b)), hparam_values, hparam_values),
)


@settings(max_examples=FEW)
@given(
    status=st.one_of(strings, st.integers(-1, 5), st.sampled_from(["success", "FAILURE", 1.0])),
    end=st.one_of(st.none(), st.floats(), strings),
)
def test_session_end(status, end):
    check_contract(
        lambda: hp.session_end(status, end_time_secs=end), ("session_end",), "_hparams_/session_end_info"
    )


conditions = st.one_of(
    st.booleans(),
    st.sampled_from([np.bool_(True), np.array([True, False]), None, "yes", 1]),
    st.builds(
        lambda value: lambda: value, st.sampled_from([True, False, np.bool_(False), np.array([1, 2]), 0, "x"])
    ),
)


@settings(max_examples=FEW)
@given(default_step=steps, condition=conditions)
def test_set_step_and_record_if(default_step, condition):
    def call():
        try:
            sl.set_step(default_step)
            with sl.record_if(condition):
                return sl.scalar("x", 3.0, step=7)
        finally:
            sl.set_step(1)

    check_contract(call, ("set_step", "record_if"), None, may_skip=True)
