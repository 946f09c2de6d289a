"""All-reduce three ways (and more) over real OS processes, every byte and round measured."""

__version__ = "0.1.0"
