"""mindstream front door: command line, services, experiment runners."""
