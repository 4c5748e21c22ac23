"""What people see and type: the text table, the console seat's screen and input.

``table_view`` draws the boards, pockets, clocks and seat labels once for
all three: the ``play`` screen (``console_screen``) and the text table of
``match`` and ``replay`` (``render``).

Pure: these modules turn values into text and keystrokes into commands; the
terminal I/O lives with the console player and the commands.
"""
