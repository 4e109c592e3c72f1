"""One module per trainer; each imports its trainer only when used."""
