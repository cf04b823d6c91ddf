"""SIP over WebSocket for browser clients: the codec, the transport, digest authentication, dialog
subscriptions and registrations."""
