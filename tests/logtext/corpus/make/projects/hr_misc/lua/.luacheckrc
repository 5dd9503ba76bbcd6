std = "lua53"
