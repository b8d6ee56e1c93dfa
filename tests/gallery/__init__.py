"""The gallery of dumb and cheating agents (issue 26, item 5): `agents` holds them, `measure`
runs them through the product's CLI and tabulates their scorecards."""
