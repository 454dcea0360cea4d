"""HTTP front end."""
