"""Work that follows the log: reactors with durable tracking positions, and timers on clock time."""
