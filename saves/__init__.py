"""Example sessions shipped with gmdesk, one per dice system. Opened only as
templates ("new from example"): gmdesk copies them and never writes here."""

if __name__ != "gmdesk.saves":  # `import saves` from the repository root: a second copy of every module
    raise ImportError("gmdesk's saves is imported as gmdesk.saves (from the installed package), never as saves")
