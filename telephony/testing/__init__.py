"""What an integrator's test suite uses: the pytest plugin's parts (its entry point is
`telephony.testing.plugin`), a small HTTP client, the webhook receiver, waiting for events of the
stream, the listener that forwards them to a local URL (`telephony listen`), scenario files and their
runner. It sits on top of the app, which it starts through `telephony.embedded`; nothing imports it."""
