"""What people see and type: the text table, the console seat's screen and input.

Pure: these modules turn values into text and keystrokes into commands; the
terminal I/O lives with the console player and the commands.
"""
