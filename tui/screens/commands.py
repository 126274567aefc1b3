"""The main screen's moves in the command palette: (title, help, callback) for each,
the key it is bound to by default in the help (the palette shows the GM's current
keys beside it). The dice system's moves are generated from what the session's
system declares (:func:`move_commands`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from gmdesk.core.systems import character_sections
from gmdesk.core.systems.spec import Move
from gmdesk.tui.screens.moves import move_title

if TYPE_CHECKING:
    from gmdesk.tui.screens.main import MainScreen


def desk_commands(screen: MainScreen) -> list[tuple[str, str, Callable[[], Any]]]:
    """Every move of the main screen as (title, help, callback): the desk's, with the
    session's system's moves after the encounter's."""
    out = [
        ("Roll…", "roll any system with live odds (r)", screen.action_roll),
        ("Attack…", "the current combatant attacks; applies the descriptor (a)", screen.action_attack),
        ("Next turn", "durations tick when a turn ends (n)", screen.action_next_turn),
        ("Previous turn", "back one turn (p)", screen.action_prev_turn),
        ("New round", "start the next round (R)", screen.action_new_round),
        ("Roll initiative for all…", "the session's system, or typed numbers (i)", screen.action_initiative),
        ("Roll initiative for all now", "default modifiers, no questions", screen.roll_initiative_for_all),
        ("Add character…", "name, side, kind, Vitality, Possibilities (c)", screen.action_new_character),
        (
            "Add from bestiary…",
            "numbered copies of a stat block join the encounter (B)",
            screen.action_add_from_bestiary,
        ),
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
            "Hide from the players / Reveal to the players",
            "the selected character: the player view and the public chronicle leave it out while hidden (H)",
            screen.action_toggle_hidden,
        ),
        (
            "Reveal earlier rolls",
            "show the players the rolls the selected character made or took while hidden",
            screen.action_reveal_rolls,
        ),
        *move_commands(screen),
        ("Undo", "revert the latest change (u)", screen.action_undo),
        ("Redo", "re-apply what was undone (U, ctrl+y)", screen.action_redo),
        ("Filter the log…", "by character or system (f)", screen.action_filter_log),
        ("Roll details", "the full breakdown of the roll under the log cursor", screen.action_roll_details),
        ("Copy roll", "copy the roll under the log cursor to the clipboard", screen.action_copy_roll),
        ("Focus the roll log", "", screen.action_focus_log),
        ("Add a note", "a line in the session's log", screen.action_note),
        ("Session settings…", settings_help(screen.state.info.system), screen.action_settings),
        ("End the encounter…", "empty the initiative order, round back to 0", screen.action_end_encounter),
        ("Import a descriptor sheet…", "read a sheet file for the selected character", screen.action_import_sheet),
    ]
    if "sheet" in character_sections(screen.state.info.system):
        out.append(("Spend a use", "s on a sheet row of the character pane", screen.action_focus_character))
    return out


class MoveCommand:
    """A palette entry running one of the system's moves; ``binding_id`` lets the
    palette show the key the GM's keymap gives it."""

    def __init__(self, screen: MainScreen, move: Move) -> None:
        self.screen = screen
        self.move_id = move.id
        self.binding_id = move.binding_id if move.key else None

    def __call__(self) -> None:
        self.screen.action_system_move(self.move_id)


def move_commands(screen: MainScreen) -> list[tuple[str, str, Callable[[], Any]]]:
    """The session's system's moves, as its module declares them."""
    out: list[tuple[str, str, Callable[[], Any]]] = []
    for move in screen.system_moves():
        help_text = move.help + (f" ({move.key})" if move.key else "")
        out.append((move_title(move), help_text, MoveCommand(screen, move)))
    return out


def settings_help(system: str) -> str:
    """What the session settings are, for the palette: those of the session's system
    first, then the others."""
    from gmdesk.core.session.settings import declared

    ordered = sorted(declared(), key=lambda s: s.system not in ("", system))
    return ", ".join(s.label[:1].lower() + s.label[1:] for s in ordered) or "the session's rules options"
