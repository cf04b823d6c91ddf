"""Files the API serves: SIP traces, PCAP captures, MP3 audio, CSV exports and PDF documents."""
