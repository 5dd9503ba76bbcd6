require "spec"
require "../src/slug"

describe Slug do
  it "lowercases and dashes words" do
    Slug.make("Hello World").should eq("hello-world")
  end

  it "drops punctuation at the ends" do
    Slug.make("  Hi, there! ").should eq("hi-there")
  end

  it "numbers a taken slug" do
    Slug.unique("Hello World", ["hello-world"]).should eq("hello-world-2")
  end
end
