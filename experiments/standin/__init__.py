"""A stand-in language model for tests and demos: an OpenAI-compatible server on 127.0.0.1
(`server`) answering by fixed rules (`rules`). Run it with `python -m experiments.standin`."""
