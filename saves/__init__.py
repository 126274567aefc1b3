"""Example sessions shipped with gmdesk, one per dice system. Opened only as
templates ("new from example"): gmdesk copies them and never writes here."""
