"""What a person sees on the terminal: user text shown safely (`terminal`) and progress on
long work (`progress`). Leaves: every other subpackage may use them."""
