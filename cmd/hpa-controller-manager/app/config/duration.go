package config

import "time"

// Duration is a time.Duration; the alias keeps the struct above readable.
type Duration = time.Duration
