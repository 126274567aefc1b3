"""The main screen's moves in the command palette: (title, help, callback) for each,
the key it is bound to by default in the help (the palette shows the GM's current
keys beside it)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gmdesk.tui.screens.main import MainScreen


def desk_commands(screen: MainScreen) -> list[tuple[str, str, Callable[[], Any]]]:
    """Every move of the main screen as (title, help, callback)."""
    return [
        ("Roll…", "roll any system with live odds (r)", screen.action_roll),
        ("Attack…", "the current combatant attacks; applies the descriptor (a)", screen.action_attack),
        ("Next turn", "durations tick when a turn ends (n)", screen.action_next_turn),
        ("Previous turn", "back one turn (p)", screen.action_prev_turn),
        ("New round", "start the next round (R)", screen.action_new_round),
        ("Roll initiative for all…", "the session's system, or typed numbers (i)", screen.action_initiative),
        ("Roll initiative for all now", "default modifiers, no questions", screen.roll_initiative_for_all),
        ("Add character…", "name, side, kind, Vitality, Possibilities (c)", screen.action_new_character),
        ("Remove character…", "remove the selected character from the session", screen.action_remove_character),
        ("Join the encounter", "the selected character joins the initiative order (+)", screen.action_encounter_add),
        (
            "Leave the encounter",
            "the selected character leaves the initiative order (-)",
            screen.action_encounter_remove,
        ),
        ("Move up in the order", "([)", lambda: screen.action_move(-1)),
        ("Move down in the order", "(])", lambda: screen.action_move(1)),
        ("Delay", "the selected character acts after the next combatant (d)", screen.action_delay),
        (
            "Opposed roll / two-way Test / contest…",
            "fudge opposed, 1d6x4 two-way, 4d6 contest (o)",
            lambda: screen.action_preset("opposed"),
        ),
        ("Folded roll (4d2)…", "positive or negative fold", lambda: screen.action_preset("fold")),
        ("Maneuver (4d2)…", "read the Maneuver table", lambda: screen.action_preset("maneuver")),
        (
            "Spend a Possibility (torg)",
            "on the roll under the log cursor or the latest torg roll (P)",
            screen.action_spend_possibility,
        ),
        (
            "Cancel a Possibility (torg)…",
            "another reality-rated character cancels it (C)",
            screen.action_cancel_possibility,
        ),
        (
            "Buy off damage (torg)",
            "spend a Possibility on the damage just taken (older wounds listed with their age)",
            screen.action_buyoff,
        ),
        ("Toggle Up (torg)", "the selected character's Up condition", lambda: screen.action_toggle_condition("Up")),
        (
            "Toggle Stymied (torg)",
            "the selected character's Stymied condition",
            lambda: screen.action_toggle_condition("Stymied"),
        ),
        (
            "Toggle Disconnected (torg)",
            "the selected character's Disconnected condition",
            lambda: screen.action_toggle_condition("Disconnected"),
        ),
        (
            "Two-way Test (1d6x4)…",
            "both sides roll; the defender may take 14",
            lambda: screen.action_preset("opposed"),
        ),
        ("Healing (1d6x4)…", "Healing Ability: d6 back, never above the default (h)", screen.action_heal),
        ("New day (1d6x4)…", "every current value back to its default", screen.action_new_day),
        ("Contest (4d6)…", "both roll; the higher total wins", lambda: screen.action_preset("opposed")),
        ("Add clock (4d6)…", "a named clock of N segments (K)", screen.action_clock_add),
        ("Tick clock (4d6)…", "progress in half segments (k)", screen.action_clock_tick),
        ("Undo", "revert the latest change (u)", screen.action_undo),
        ("Redo", "re-apply what was undone (U, ctrl+y)", screen.action_redo),
        ("Filter the log…", "by character or system (f)", screen.action_filter_log),
        ("Roll details", "the full breakdown of the roll under the log cursor", screen.action_roll_details),
        ("Copy roll", "copy the roll under the log cursor to the clipboard", screen.action_copy_roll),
        ("Focus the roll log", "", screen.action_focus_log),
        ("Add a note", "a line in the session's log", screen.action_note),
        (
            "Session settings…",
            "skill chance threshold (4d2), ords' reroll (torg), dice method (fudge)",
            screen.action_settings,
        ),
        ("End the encounter…", "empty the initiative order, round back to 0", screen.action_end_encounter),
        (
            "Import a descriptor sheet…",
            "read a 1d6x4 sheet file for the selected character",
            screen.action_import_sheet,
        ),
        ("Spend a use (1d6x4)", "s on a sheet row of the character pane", screen.action_focus_character),
    ]
