# Small helpers every other part may use: tick arithmetic (ticks), HMAC and
# PBKDF2 (hmac256), whether a file exists (files), and the one mechanism that
# loads modules for a while and drops them again (modules).
# May import: (nothing of crapsboard)
