const std = @import("std");

fn average(values: []const i32, from: usize, count: usize) i32 {
    var total: i32 = 0;
    var i: usize = from;
    while (i < from + count) : (i += 1) {
        total += values[i];
    }
    return @divTrunc(total, @as(i32, @intCast(count)));
}

pub fn main() void {
    const readings = [_]i32{ 4, 8, 15, 16, 23, 42 };
    var from: usize = 0;
    while (from < readings.len) : (from += 2) {
        std.debug.print("window at {d}: {d}\n", .{ from, average(&readings, from, 3) });
    }
}
