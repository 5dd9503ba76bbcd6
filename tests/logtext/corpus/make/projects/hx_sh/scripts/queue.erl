#!/usr/bin/env escript
main(_) ->
    Jobs = [{build, ok}, {test, ok}, {deploy, pending}],
    io:format("checking ~p jobs~n", [length(Jobs)]),
    [ok = check(Job) || Job <- Jobs],
    io:format("all jobs done~n").

check({_Name, ok}) -> ok;
check({Name, State}) -> {Name, State}.
