"""A floor on this machine for tests and benches: virtual boards on
pseudo-terminals, the floor's services as processes, network namespaces, and
the benches of the floor, the page and the progressive."""
