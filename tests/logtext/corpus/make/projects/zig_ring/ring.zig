const std = @import("std");

pub fn Ring(comptime N: usize) type {
    return struct {
        items: [N]i32 = undefined,
        head: usize = 0,
        len: usize = 0,

        const Self = @This();

        pub fn push(self: *Self, v: i32) void {
            self.items[(self.head + self.len) % N] = v;
            if (self.len < N) {
                self.len += 1;
            } else {
                self.head = (self.head + 1) % N;
            }
        }

        pub fn sum(self: *const Self) i32 {
            var total: i32 = 0;
            var i: usize = 0;
            while (i < self.len) : (i += 1) {
                total += self.items[(self.head + i) % N];
            }
            return total;
        }
    };
}

test "push and sum" {
    var r = Ring(3){};
    r.push(1);
    r.push(2);
    try std.testing.expectEqual(@as(i32, 3), r.sum());
}

test "oldest value is dropped when full" {
    var r = Ring(3){};
    r.push(1);
    r.push(2);
    r.push(3);
    r.push(10);
    try std.testing.expectEqual(@as(i32, 15), r.sum());
}
