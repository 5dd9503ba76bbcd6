fn main() {
    println!("plans");
}
