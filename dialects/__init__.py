"""xmux dialects: mux (ComputeMux builtins), attrs (kernel attribute accessors)."""
