"""The desk's screens and dialogs: each module one screen, one dialog, or one part of the main screen."""
