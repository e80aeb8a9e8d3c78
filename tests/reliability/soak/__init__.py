"""The long reliability suites (`make soak`): bounded, self-stopping, on a PostgreSQL cluster of their own."""
