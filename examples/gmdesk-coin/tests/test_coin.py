"""coin's own tests: gmdesk's conformance suite (``gmdesk.testing``, shipped with gmdesk)
and one of its rules with scripted dice. Run them with the package installed:

    pip install -e '.[test]' && python -m pytest
"""

from __future__ import annotations

from fractions import Fraction

import gmdesk_coin

from gmdesk.core.dice import FixedDice
from gmdesk.testing import check_system, conformance_tests

# one test per check: coin-declaration, coin-odds, coin-rolls, coin-cli
test_coin_conforms = conformance_tests("coin")


def test_the_module_conforms_as_declared() -> None:
    # the module itself, registered or not (the CLI check needs it installed)
    spec = check_system(gmdesk_coin, cli=False)
    assert (spec.id, spec.name) == ("coin", "Coin flips")


def test_a_successful_attack_bruises() -> None:
    spec = check_system("coin", cli=False)
    record = spec.module.roll(spec.Params(combat=True), FixedDice([2, 1, 2]))  # heads, tails, heads
    assert (record.value, record.outcome) == (2, "Success")
    assert [d.text for d in record.descriptors] == ["Bruise"]


def test_two_heads_of_three_coins_half_the_time() -> None:
    spec = check_system("coin", cli=False)
    odds = spec.module.odds(spec.Params())
    assert dict(odds.outcomes)["Success"] == Fraction(1, 2)
