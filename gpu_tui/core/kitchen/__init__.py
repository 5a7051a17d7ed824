"""The kitchen model: chef vs brigade, exact closed forms, the conveyor timeline and scenarios."""
