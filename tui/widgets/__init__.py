"""The desk's widgets: dumb views that show the state they are given and post the GM's intent up as typed messages."""
