"""Small helpers shared by the rules tests."""

from hypothesis import strategies as st


class DrawnDice:
    """Dice drawn by hypothesis, one draw per die (a RandomSource for property tests)."""

    def __init__(self, data):
        self.data = data

    def randint(self, a, b):
        return self.data.draw(st.integers(a, b))
